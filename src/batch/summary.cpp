#include "batch/summary.hpp"

#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "core/verdict_status.hpp"

namespace kjudge::batch {

namespace {

using json = nlohmann::json;

std::string status_of(const json& doc) {
  if (doc.contains("batch") && doc["batch"].value("outcome", "") == "judge_fault") return "judge_fault";
  return doc.contains("verdict") ? doc["verdict"].value("status", "?") : "?";
}

bool correct(const json& doc) {
  return is_ok_status(status_of(doc));
}

std::optional<double> number_at(const json& j, const char* key) {
  if (j.is_object() && j.contains(key) && j[key].is_number()) return j[key].get<double>();
  return std::nullopt;
}

const json& first_timing_case(const json& doc) {
  static const json none;
  if (doc.contains("timing") && doc["timing"].is_object() && doc["timing"].contains("cases") &&
      doc["timing"]["cases"].is_array() && !doc["timing"]["cases"].empty())
    return doc["timing"]["cases"][0];
  return none;
}

bool is_eager(const std::string& name) {
  return name == "torch:eager" || name == "torch_eager";
}
bool is_compile(const std::string& name) {
  return name.rfind("torch:compile", 0) == 0 || name.rfind("torch_compile", 0) == 0;
}

// The reference time as KernelBench means it (eager PyTorch), else the problem's reference
// baseline: {ms, baseline name}.
std::pair<double, std::string> ref_runtime(const json& tc) {
  if (!tc.is_object() || !tc.contains("baselines")) return {-1.0, ""};
  std::pair<double, std::string> best{-1.0, ""};
  for (const auto& b : tc["baselines"]) {
    const std::string name = b.value("name", "");
    const auto m = number_at(b, "median_s");
    if (!m) continue;
    if (is_eager(name)) return {*m * 1e3, name};
    if (name == "reference") best = {*m * 1e3, name};
  }
  return best;
}

json runtime_stats(const json& tc) {
  if (!tc.is_object() || !tc.contains("candidate") || !tc["candidate"].is_object()) return json::object();
  const json& c = tc["candidate"];
  json out{{"unit", "ms"}};
  for (const char* k : {"median", "q25", "q75", "min", "max"})
    if (const auto v = number_at(c, (std::string(k) + "_s").c_str())) out[k] = *v * 1e3;
  if (c.contains("n")) out["num_trials"] = c["n"];
  return out;
}

json kjudge_section(const json& doc) {
  const json& b = doc.contains("batch") ? doc["batch"] : json::object();
  json k{{"status", status_of(doc)},
         {"rule", doc.contains("verdict") ? doc["verdict"].value("rule", json()) : json()},
         {"key", b.value("key", "")},
         {"candidate", b.value("candidate", "")},
         {"outcome", b.value("outcome", "judged")},
         {"tolerance", b.value("tolerance", "kjudge")}};
  if (doc.contains("speedup") && doc["speedup"].is_object()) {
    const json& s = doc["speedup"];
    k["speedup"] = s.value("median", json());
    k["ci95"] = s.value("ci95", json());
    k["baseline"] = s.value("baseline", json());
    k["per_baseline"] = s.value("per_baseline", json());
  }
  if (b.contains("own_tolerance")) k["own_tolerance"] = b["own_tolerance"];
  if (doc.contains("tolerance")) k["applied_tolerance"] = doc["tolerance"];
  return k;
}

json eval_entry(const json& doc, int sample_id) {
  const std::string st = status_of(doc);
  const json& tc = first_timing_case(doc);
  const auto [ref_ms, ref_name] = ref_runtime(tc);
  const auto cand_ms =
      tc.is_object() && tc.contains("candidate") ? number_at(tc["candidate"], "median_s") : std::nullopt;
  json metadata{{"problem", doc.contains("problem") ? doc["problem"].value("name", "") : ""}};
  if (doc.contains("device")) metadata["device"] = doc["device"];
  if (doc.contains("env") && doc["env"].is_object() && doc["env"].contains("gpu"))
    metadata["hardware"] = doc["env"]["gpu"];
  if (!correct(doc) && doc.contains("verdict") && !doc["verdict"].value("reasons", json::array()).empty())
    metadata["error"] = doc["verdict"]["reasons"][0];
  json k = kjudge_section(doc);
  k["ref_runtime_baseline"] = ref_name.empty() ? json() : json(ref_name);
  return {{"sample_id", sample_id},
          {"compiled", st != "compile_error" && st != "bad_input" && st != "judge_fault"},
          {"correctness", correct(doc)},
          {"runtime", cand_ms ? *cand_ms * 1e3 : -1.0},
          {"runtime_stats", runtime_stats(tc)},
          {"ref_runtime", ref_ms},
          {"metadata", metadata},
          {"kjudge", k}};
}

// Each candidate's speedup over the target's baseline, nullopt without one; `which` names it.
std::optional<double> speedup_against(const json& doc, const std::string& target, std::string& which) {
  if (!doc.contains("speedup") || !doc["speedup"].is_object()) return std::nullopt;
  const json& s = doc["speedup"];
  if (target == "kjudge") {
    which = s.value("baseline", "?");
    return number_at(s, "median");
  }
  if (!s.contains("per_baseline") || !s["per_baseline"].is_object()) return std::nullopt;
  std::optional<double> best;
  for (const auto& [name, fig] : s["per_baseline"].items()) {
    const bool match = target == "torch:eager" ? is_eager(name) : is_compile(name);
    const auto m = number_at(fig, "median");
    if (match && m && (!best || *m < *best)) {  // the strongest mode: the smallest speedup over it
      best = m;
      which = name;
    }
  }
  return best;
}

}  // namespace

json kernelbench_eval_results(const std::vector<json>& results) {
  std::set<int> levels;
  for (const auto& d : results)
    if (d.contains("batch") && d["batch"].contains("kernelbench"))
      levels.insert(d["batch"]["kernelbench"]["level"].get<int>());
  json out = json::object();
  std::map<std::string, int> next_sample;
  for (const auto& d : results) {
    const json& b = d.contains("batch") ? d["batch"] : json::object();
    std::string key = b.value("problem", d.contains("problem") ? d["problem"].value("name", "?") : "?");
    int sample = next_sample[key]++;
    if (b.contains("kernelbench")) {
      const json& kb = b["kernelbench"];
      key = (levels.size() > 1 ? std::to_string(kb["level"].get<int>()) + "/" : "") +
            std::to_string(kb["problem_id"].get<int>());
      sample = kb["sample_id"].get<int>();
    }
    out[key].push_back(eval_entry(d, sample));
  }
  return out;
}

json fast_p(const std::vector<json>& results) {
  json out{{"p", fast_p_thresholds}, {"n", results.size()}, {"against", json::object()}};
  int n_correct = 0;
  for (const auto& d : results) n_correct += correct(d) ? 1 : 0;
  out["correct"] = n_correct;
  const std::vector<std::pair<std::string, std::string>> targets{
      {"torch:eager", "torch eager (the speedup over torch:eager)"},
      {"torch:compile", "the strongest torch.compile mode in each candidate's result (its smallest speedup)"},
      {"kjudge", "the baseline kjudge's verdict used (speedup.baseline: the strongest baseline timed)"}};
  for (const auto& [target, what] : targets) {
    std::vector<int> fast(fast_p_thresholds.size(), 0);
    int without = 0;
    std::map<std::string, int> baselines;
    for (const auto& d : results) {
      if (!correct(d)) continue;
      std::string which;
      const auto s = speedup_against(d, target, which);
      if (!s) {
        ++without;
        continue;
      }
      ++baselines[which];
      for (std::size_t i = 0; i < fast.size(); ++i) fast[i] += *s > fast_p_thresholds[i] ? 1 : 0;
    }
    json fp = json::object();
    for (std::size_t i = 0; i < fast.size(); ++i) {
      char name[32];
      std::snprintf(name, sizeof name, "fast_%g", fast_p_thresholds[i]);
      fp[name] = results.empty() ? 0.0 : static_cast<double>(fast[i]) / static_cast<double>(results.size());
    }
    out["against"][target] = {
        {"baseline", what}, {"fast_p", fp}, {"correct_without_baseline", without}, {"baselines_used", baselines}};
  }
  return out;
}

std::string summary_table(const std::vector<json>& results, const json& fast) {
  std::map<std::string, int> by_status;
  for (const auto& d : results) ++by_status[status_of(d)];
  std::string s = std::to_string(results.size()) + " result(s):";
  for (const auto& [k, v] : by_status) s += " " + k + " " + std::to_string(v) + ";";
  s += "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-16s %6s %8s %12s", "fast_p against", "n", "correct", "no baseline");
  s += line;
  for (const double p : fast_p_thresholds) {
    std::snprintf(line, sizeof line, " %9s",
                  ("fast_" + std::string(p == 1.5 ? "1.5" : std::to_string(static_cast<int>(p)))).c_str());
    s += line;
  }
  s += "\n";
  for (const auto& [target, row] : fast["against"].items()) {
    std::snprintf(line, sizeof line, "%-16s %6d %8d %12d", target.c_str(), fast["n"].get<int>(),
                  fast["correct"].get<int>(), row["correct_without_baseline"].get<int>());
    s += line;
    for (const auto& [k, v] : row["fast_p"].items()) {
      std::snprintf(line, sizeof line, " %9.3f", v.get<double>());
      s += line;
    }
    s += "\n";
  }
  return s;
}

}  // namespace kjudge::batch
