#include "judge/kernel_census.hpp"

#include <algorithm>
#include <map>
#include <variant>

namespace kjudge {

namespace {

using nlohmann::json;

// The reply of `type` to `request`, or the reason there is none (the census never throws for a
// worker: it runs after the verdict's figures are in).
std::variant<json, std::string> ask(worker_process& w, const json& request, const std::string& expected,
                                    double timeout_s) {
  worker_reply r = w.request(request, timeout_s);
  if (std::holds_alternative<worker_failure>(r)) return std::get<worker_failure>(r).message;
  json j = std::get<json>(std::move(r));
  if (j.value("type", "") != expected) return "expected '" + expected + "', got '" + j.value("type", "?") + "'";
  return j;
}

std::map<std::string, long> name_counts(const json& entry) {
  std::map<std::string, long> counts;
  if (!entry.contains("by_name") || !entry["by_name"].is_array()) return counts;
  for (const auto& k : entry["by_name"]) counts[k.value("name", "")] += k.value("count", 0L);
  return counts;
}

// Names `a` ran more often than `b`, with the difference when above one ("name x2").
json more_often(const std::map<std::string, long>& a, const std::map<std::string, long>& b) {
  json out = json::array();
  for (const auto& [name, n] : a) {
    const auto it = b.find(name);
    const long extra = n - (it == b.end() ? 0 : it->second);
    if (extra > 0) out.push_back(extra > 1 ? name + " x" + std::to_string(extra) : name);
  }
  return out;
}

}  // namespace

json census_entry(const json& trace, double seconds) {
  std::map<std::string, json> by_name;
  double kernel_ns = 0;
  long kernels = 0;
  std::size_t listed = 0;
  if (trace.contains("records") && trace["records"].is_array()) {
    listed = trace["records"].size();
    for (const auto& r : trace["records"]) {
      if (r.value("kind", "") != "kernel" || r.value("judge", false)) continue;
      if (!r.contains("start_ns") || !r.contains("end_ns") || !r["start_ns"].is_number() || !r["end_ns"].is_number())
        continue;
      const double ns = r["end_ns"].get<double>() - r["start_ns"].get<double>();
      const std::string name = r.value("name", "");
      json& k = by_name[name];
      if (k.is_null())
        k = json{{"name", name},
                 {"count", 0},
                 {"ns", 0.0},
                 {"grid", r.value("grid", json())},
                 {"block", r.value("block", json())}};
      k["count"] = k["count"].get<long>() + 1;
      k["ns"] = k["ns"].get<double>() + ns;
      kernel_ns += ns;
      ++kernels;
    }
  }
  std::vector<json> sorted;
  for (auto& [name, k] : by_name) sorted.push_back(std::move(k));
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const json& a, const json& b) { return a["ns"].get<double>() > b["ns"].get<double>(); });
  // "complete": every record of the call was listed (the backend lists a bounded number), so the
  // names and sums cover the whole call.
  const bool complete = trace.value("records_total", 0UL) <= listed && trace.value("dropped_records", 0UL) == 0;
  return json{{"window_ns", trace.value("window_ns", json())},
              {"kernel_ns", kernel_ns},
              {"kernels", kernels},
              {"by_name", sorted},
              {"complete", complete},
              {"seconds", seconds}};
}

json census_call(worker_process& w, const call_spec& call, std::uint64_t seed, const std::string& mode,
                 double timeout_s) {
  const auto begun =
      ask(w, json{{"type", "time_begin"}, {"call", to_json(call)}, {"mode", mode}}, "time_ready", timeout_s);
  if (std::holds_alternative<std::string>(begun)) return json{{"error", "time_begin: " + std::get<std::string>(begun)}};
  const auto sampled = ask(w, json{{"type", "sample"}, {"seed", seed}, {"trace", true}}, "sampled", timeout_s);
  if (std::holds_alternative<std::string>(sampled))
    return json{{"error", "traced call: " + std::get<std::string>(sampled)}};
  const json& s = std::get<json>(sampled);
  json entry;
  if (s.value("rc", 0) != 0) {
    entry = json{{"error", "the traced call returned " + s["rc"].dump()}};
  } else if (!s.contains("extra") || !s["extra"].is_object() || !s["extra"].contains("trace") ||
             !s["extra"]["trace"].is_object()) {
    entry = json{{"error", "unavailable: the worker's backend returned no trace"}};
  } else {
    entry = census_entry(s["extra"]["trace"], s.value("seconds", 0.0));
  }
  if (const auto d = ask(w, json{{"type", "discard"}}, "discarded", timeout_s); std::holds_alternative<std::string>(d))
    return json{{"error", "discard: " + std::get<std::string>(d)}};
  if (const auto e = ask(w, json{{"type", "time_end"}}, "time_done", timeout_s); std::holds_alternative<std::string>(e))
    return json{{"error", "time_end: " + std::get<std::string>(e)}};
  return entry;
}

bool same_kernels(const json& a, const json& b) {
  return name_counts(a) == name_counts(b);
}

json compare_same_code(const json& candidate, const json& baseline, int set, const std::string& case_id,
                       const std::string& baseline_name) {
  json c{{"set", set}, {"case", case_id}, {"baseline", baseline_name}};
  if (candidate.contains("error") || baseline.contains("error")) {
    c["error"] = candidate.contains("error") ? "candidate: " + candidate["error"].get<std::string>()
                                             : baseline_name + ": " + baseline["error"].get<std::string>();
    return c;
  }
  const auto a = name_counts(candidate), b = name_counts(baseline);
  c["same_kernels"] = a == b;
  c["candidate_kernel_ns"] = candidate.value("kernel_ns", 0.0);
  c["baseline_kernel_ns"] = baseline.value("kernel_ns", 0.0);
  c["candidate_window_ns"] = candidate.value("window_ns", json());
  c["baseline_window_ns"] = baseline.value("window_ns", json());
  c["only_candidate"] = more_often(a, b);
  c["only_baseline"] = more_often(b, a);
  c["complete"] = candidate.value("complete", false) && baseline.value("complete", false);
  return c;
}

}  // namespace kjudge
