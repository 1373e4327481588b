#include "loop/context.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/hash.hpp"
#include "core/verdict_status.hpp"

namespace kjudge::loop {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json tensors_json(const std::vector<tensor_spec>& ts) {
  json a = json::array();
  for (const auto& t : ts) a.push_back(json{{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}});
  return a;
}

json cases_json(const std::vector<case_spec>& cs) {
  json a = json::array();
  for (const auto& c : cs) a.push_back(json{{"symbols", c.symbols}, {"distribution", c.distribution}});
  return a;
}

std::string read_or_empty(const fs::path& p) {
  try {
    return read_file(p);
  } catch (const std::exception&) {
    return {};
  }
}

json verdict_json(const json& s) {
  return json{{"status", s.value("status", "")},
              {"rule", s.value("rule", json())},
              {"reasons", s.value("reasons", json::array())}};
}

json speedup_json(const json& s) {
  if (!s.value("median", json()).is_number()) return nullptr;
  return json{{"median", s["median"]},
              {"ci95", {s.value("lo", json()), s.value("hi", json())}},
              {"baseline", s.value("baseline", json())}};
}

// Everything the proposer may want about one judged proposal.
json proposal_json(const loop_state& st, const proposal& p, const fs::path& workdir, bool with_source) {
  const json* s = st.effective_summary(p);
  json j{{"id", p.id},
         {"iteration", p.iteration},
         {"path", p.file.empty() ? json() : json((workdir / p.file).string())},
         {"sha256", p.sha256},
         {"meta", p.meta}};
  if (s != nullptr) {
    j["family"] = s->value("family", "unknown");
    j["notes"] = s->value("notes", "");
    j["verdict"] = verdict_json(*s);
    j["speedup"] = speedup_json(*s);
    j["time_s"] = s->value("time_s", json());
    j["cases"] = s->value("cases", json::array());
    j["fraction_of_speed_of_light"] = s->value("fraction_of_speed_of_light", json());
    j["peak_memory_bytes"] = s->value("peak_memory_bytes", json());
    j["baseline_peak_memory_bytes"] = s->value("baseline_peak_memory_bytes", json());
    j["ptxas"] = s->value("ptxas", json());
    j["failing_case"] = s->value("failing_case", json());
  }
  if (with_source && !p.file.empty()) {
    std::string src = read_or_empty(workdir / p.file);
    constexpr std::size_t k_max_source = std::size_t{256} * 1024;  // bytes; proposals are limited to 1 MiB
    if (src.size() > k_max_source) src = src.substr(0, k_max_source) + "\n/* ... truncated by kjudge ... */\n";
    j["source"] = src;
  }
  return j;
}

std::string fmt_speedup(const json& sp) {
  if (!sp.is_object() || !sp["median"].is_number()) return "-";
  const auto& ci = sp["ci95"];
  if (ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number())
    return fmt::format("{:.3g}x [{:.3g}, {:.3g}]", sp["median"].get<double>(), ci[0].get<double>(),
                       ci[1].get<double>());
  return fmt::format("{:.3g}x", sp["median"].get<double>());
}

std::string fmt_time(const json& t) {
  if (!t.is_number()) return "-";
  const double s = t.get<double>();
  if (s >= 1) return fmt::format("{:.3g} s", s);
  if (s >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  if (s >= 1e-6) return fmt::format("{:.3g} us", s * 1e6);
  return fmt::format("{:.3g} ns", s * 1e9);
}

std::string str_or(const json& j, const char* k, const std::string& dflt = "-") {
  if (!j.contains(k) || j[k].is_null()) return dflt;
  if (j[k].is_string()) return j[k].get<std::string>();
  return j[k].dump();
}

}  // namespace

json problem_json(const problem_spec& p, const std::string& device, const std::string& dtype) {
  json scalars = json::array();
  for (const auto& s : p.scalars) scalars.push_back(json{{"name", s.name}, {"value", s.value}});
  json tol = json::object();
  for (const auto& [d, t] : p.tolerances) tol[d] = json{{"rtol", t.rtol}, {"atol", t.atol}};
  json j{{"name", p.name},
         {"description", p.description},
         {"spec", p.file.string()},
         {"device", device},
         {"dtype", dtype},
         {"dtypes", p.dtypes},
         {"check", p.check},
         {"tf32_allowed", p.tf32_allowed},
         {"signature",
          {{"symbols", p.symbols},
           {"inputs", tensors_json(p.inputs)},
           {"outputs", tensors_json(p.outputs)},
           {"scalars", scalars}}},
         {"tolerances", tol},
         {"conditioning_k", p.conditioning_k},
         {"cost", {{"bytes", p.cost_bytes}, {"flops", p.cost_flops}}},
         {"public_cases", cases_json(p.public_cases)}};
  auto b = p.bench_cases.find(device);
  j["bench_cases"] = b != p.bench_cases.end() ? cases_json(b->second) : json::array();
  if (auto h = p.hidden.find(device); h != p.hidden.end()) {
    json ranges = json::object();
    for (const auto& r : h->second.ranges) ranges[r.symbol] = {r.min, r.max};
    j["hidden"] = json{{"count", h->second.count},
                       {"ranges", ranges},
                       {"distributions", h->second.distributions},
                       {"max_elements", h->second.max_elements},
                       {"note", "drawn from a secret seed at every evaluation; only these declared ranges are public"}};
  }
  return j;
}

json build_context(const loop_state& st, const problem_spec& p, int iteration, const request& req,
                   const context_paths& paths) {
  const json& cfg = st.config;
  const std::string device = cfg.value("device", std::string("cpu"));
  std::string dtype = cfg.value("dtype", json()).is_string() ? cfg["dtype"].get<std::string>() : std::string();
  if (dtype.empty() && !p.dtypes.empty()) dtype = p.dtypes.front();
  const fs::path header = fs::path(KJUDGE_SOURCE_DIR) / "include" / "kjudge" / "candidate.h";
  const fs::path helpers = fs::path(KJUDGE_SOURCE_DIR) / "include" / "kjudge" / "reference_util.h";

  json beam = json::array();
  for (const auto& m : st.beam) {
    const proposal* pr = st.find(m.c.id);
    if (pr == nullptr) continue;
    json j = proposal_json(st, *pr, paths.workdir, true);
    j["rank"] = m.rank;
    j["near_miss"] = m.near_miss;
    beam.push_back(std::move(j));
  }

  // Recent rejected proposals with their failing case, newest first.
  json rejected = json::array();
  for (auto it = st.proposals.rbegin(); it != st.proposals.rend() && rejected.size() < 5; ++it) {
    if (it->state != "judged" || is_ok_status(it->summary.value("status", ""))) continue;
    rejected.push_back(proposal_json(st, *it, paths.workdir, true));
  }

  json families = json::array();
  for (const auto& [name, f] : st.families) families.push_back(family_to_json(f));

  int judged = 0, correct = 0, garbage = 0, duplicates = 0, discarded = 0;
  for (const auto& pr : st.proposals) {
    if (pr.state == "judged") {
      ++judged;
      if (is_ok_status(pr.summary.value("status", ""))) ++correct;
    }
    if (pr.state == "garbage") ++garbage;
    if (pr.state == "duplicate") ++duplicates;
    if (pr.state == "discarded" || pr.state == "skipped") ++discarded;
  }
  json best_by_iteration = json::array();
  for (const auto& [i, rec] : st.iterations) {
    if (!rec.finished) continue;
    best_by_iteration.push_back(json{{"iteration", i},
                                     {"best", rec.beam_event.value("best", json())},
                                     {"improved", rec.beam_event.value("improved", false)},
                                     {"proposer", rec.proposer.value("status", "")}});
  }
  json recent = json::array();
  const std::size_t from = st.proposals.size() > 20 ? st.proposals.size() - 20 : 0;
  for (std::size_t i = from; i < st.proposals.size(); ++i) {
    const auto& pr = st.proposals[i];
    const json* s = st.effective_summary(pr);
    recent.push_back(json{{"id", pr.id},
                          {"iteration", pr.iteration},
                          {"state", pr.state},
                          {"reason", pr.reason},
                          {"family", s != nullptr ? json(s->value("family", "unknown")) : json()},
                          {"status", s != nullptr ? json(s->value("status", "")) : json()},
                          {"speedup", s != nullptr ? speedup_json(*s) : json()}});
  }

  json request_j = req.to_json();
  if (const proposal* t = st.find(req.target_id); t != nullptr && !t->file.empty())
    request_j["target_path"] = (paths.workdir / t->file).string();

  const std::string ext = device == "cuda" ? ".cu" : ".cpp";
  return json{
      {"schema", k_context_schema},
      {"protocol_version", k_protocol_version},
      {"run", cfg.value("id", "")},
      {"iteration", iteration},
      {"request", request_j},
      {"problem", problem_json(p, device, dtype)},
      {"abi",
       {{"version", 1},
        {"header_path", header.string()},
        {"header", read_or_empty(header)},
        {"helpers_path", helpers.string()},
        {"include", "#include \"kjudge/candidate.h\""},
        {"exports",
         {"int kj_run(const kj_args*) (required)", "size_t kj_workspace_bytes(const kj_args*) (optional)",
          "const char* kj_info(void) (optional: \"family=NAME;notes=...\"; the loop groups candidates by NAME)"}}}},
      {"beam", beam},
      {"rejected", rejected},
      {"families", families},
      {"history",
       {{"iterations_finished", st.finished_iterations},
        {"proposals", st.proposals.size()},
        {"judged", judged},
        {"correct", correct},
        {"rejected", judged - correct},
        {"garbage", garbage},
        {"duplicates", duplicates},
        {"discarded", discarded},
        {"best", st.best ? to_json(*st.best) : json()},
        {"best_by_iteration", best_by_iteration},
        {"recent", recent}}},
      {"output",
       {{"dir", paths.out_dir.string()},
        {"extension", ext},
        {"max_files", cfg.value("max_proposals", 16)},
        {"timeout_s", cfg.value("proposer_timeout_s", 900.0)},
        {"max_bytes", 1 << 20}}},
      {"judge",
       {{"device", device},
        {"dtype", dtype},
        {"timing_budget_s", cfg.value("eval", json::object()).value("timing_budget_s", 2.0)},
        {"min_rounds", cfg.value("eval", json::object()).value("min_rounds", 10)},
        {"rule",
         "correct on every public and hidden case, anti-cheat rules included; faster only if the 95% CI of the "
         "speedup over the strongest baseline is above 1"}}},
      {"brief", paths.brief.string()}};
}

std::string render_brief(const json& c) {
  const json& p = c["problem"];
  const json& req = c["request"];
  std::string md;
  md += fmt::format("# kjudge loop: {} — iteration {}\n\n", p.value("name", ""), c.value("iteration", 0));
  md += fmt::format("Protocol {} (`{}`); the same content as JSON: `$KJUDGE_CONTEXT`.\n\n",
                    c.value("protocol_version", 1), c.value("schema", ""));
  md += "## Request\n\n";
  const std::string kind = req.value("kind", "");
  if (kind == "improve")
    md += fmt::format("**Improve `{}`** (family `{}`): {}.\n", str_or(req, "target"), str_or(req, "family"),
                      str_or(req, "reason"));
  else if (kind == "fix")
    md += fmt::format("**Fix `{}`** (family `{}`): {}.\n", str_or(req, "target"), str_or(req, "family"),
                      str_or(req, "reason"));
  else if (kind == "new_family") {
    md += fmt::format("**Propose a structurally different algorithm family.** {}.\n", str_or(req, "reason"));
    std::string fams;
    for (const auto& f : req.value("avoid_families", json::array()))
      fams += (fams.empty() ? "" : ", ") + ("`" + f.get<std::string>() + "`");
    if (!fams.empty()) md += "Families tried so far: " + fams + ".\n";
  } else
    md += fmt::format("**Propose a first candidate.** {}.\n", str_or(req, "reason"));
  if (req.contains("target_path")) md += fmt::format("Its source: `{}`.\n", req["target_path"].get<std::string>());
  const json& out = c["output"];
  md += fmt::format(
      "\nWrite one or more candidate files (`*{}`, at most {}, each at most 1 MiB) into `$KJUDGE_OUTPUT_DIR` (`{}`) "
      "and "
      "exit 0 within {:.0f} s. Each file is one candidate: it includes `kjudge/candidate.h`, exports `kj_run`, and "
      "should export `kj_info` returning `\"family=NAME;notes=...\"` — candidates are grouped into families by "
      "NAME.\n\n",
      out.value("extension", ".cpp"), out.value("max_files", 16), out.value("dir", ""), out.value("timeout_s", 900.0));

  md += fmt::format("## Problem: {}\n\n{}\n\n", p.value("name", ""), p.value("description", ""));
  md += fmt::format("Device `{}`, dtype `{}` (variants: {}). Spec: `{}`.\n\n", p.value("device", ""),
                    p.value("dtype", ""), p["dtypes"].dump(), p.value("spec", ""));
  md += "| role | name | dtype | shape |\n|---|---|---|---|\n";
  for (const char* role : {"inputs", "outputs"})
    for (const auto& t : p["signature"][role])
      md += fmt::format("| {} | {} | {} | [{}] |\n", role, t.value("name", ""), t.value("dtype", ""), [&] {
        std::string s;
        for (const auto& d : t["shape"]) s += (s.empty() ? "" : ", ") + d.get<std::string>();
        return s;
      }());
  for (const auto& s : p["signature"]["scalars"])
    md += fmt::format("| scalar | {} | f64 | {} |\n", s.value("name", ""), s["value"].dump());
  md += fmt::format("\nCost model: bytes = `{}`, flops = `{}`. Tolerances: {}.\n", p["cost"].value("bytes", ""),
                    p["cost"].value("flops", ""), p["tolerances"].dump());
  md += "Public cases: ";
  for (const auto& cs : p["public_cases"]) md += cs["symbols"].dump() + " " + cs.value("distribution", "") + "; ";
  md += "\nTimed (bench) cases: ";
  for (const auto& cs : p["bench_cases"]) md += cs["symbols"].dump() + " " + cs.value("distribution", "") + "; ";
  if (p.contains("hidden"))
    md += fmt::format(
        "\nHidden cases: {} per evaluation, shapes in {}, distributions {} (secret seed; odd sizes, M=1, N=1 "
        "included).\n",
        p["hidden"].value("count", 0), p["hidden"]["ranges"].dump(), p["hidden"]["distributions"].dump());
  md += fmt::format("\n{}\n\n", c["judge"].value("rule", ""));

  md += "## Beam\n\n";
  if (c["beam"].empty())
    md += "Empty: no correct candidate yet.\n\n";
  else {
    md +=
        "| rank | id | family | verdict | speedup (95% CI) | time | speed of light | peak memory "
        "|\n|---|---|---|---|---|---|---|---|\n";
    for (const auto& m : c["beam"])
      md += fmt::format("| {}{} | {} | {} | {} | {} | {} | {} | {} |\n", m.value("rank", 0),
                        m.value("near_miss", false) ? " (near-miss)" : "", m.value("id", ""), m.value("family", ""),
                        m["verdict"].value("status", ""), fmt_speedup(m.value("speedup", json())),
                        fmt_time(m.value("time_s", json())), str_or(m, "fraction_of_speed_of_light", "n/a"),
                        str_or(m, "peak_memory_bytes", "n/a"));
    md += "\n";
    for (const auto& m : c["beam"]) {
      md += fmt::format("### {} — family `{}`{}\n\n", m.value("id", ""), m.value("family", ""),
                        m.value("notes", "").empty() ? "" : " (" + m.value("notes", "") + ")");
      for (const auto& cs : m.value("cases", json::array()))
        md += fmt::format("- {} {}: {} vs {} → {}\n", cs.value("id", ""), cs.value("shape", ""),
                          fmt_time(cs.value("median_s", json())), str_or(cs, "strongest"),
                          fmt_speedup(cs.value("speedup", json())));
      if (!m.value("ptxas", json()).is_null()) md += "- ptxas: `" + m["ptxas"].dump() + "`\n";
      md += fmt::format("\nSource (`{}`):\n\n```cpp\n{}```\n\n", str_or(m, "path"), m.value("source", ""));
    }
  }
  if (!c["rejected"].empty()) {
    md += "## Recently rejected\n\n";
    for (const auto& r : c["rejected"]) {
      md += fmt::format("### {} — family `{}`: {}{}\n\n", r.value("id", ""), r.value("family", "unknown"),
                        r["verdict"].value("status", ""),
                        r["verdict"]["rule"].is_string() ? " (" + r["verdict"]["rule"].get<std::string>() + ")" : "");
      for (const auto& why : r["verdict"].value("reasons", json::array())) md += "- " + why.get<std::string>() + "\n";
      if (!r.value("failing_case", json()).is_null())
        md += "\nFailing case:\n\n```json\n" + r["failing_case"].dump(2) + "\n```\n";
      md += fmt::format("\nSource (`{}`) is in the JSON context.\n\n", str_or(r, "path"));
    }
  }
  md += "## Families\n\n";
  if (c["families"].empty())
    md += "None yet.\n";
  else {
    md += "| family | attempts | correct | rejected | best | state |\n|---|---|---|---|---|---|\n";
    for (const auto& f : c["families"]) {
      std::string best = "-";
      if (f["best"].is_object())
        best = fmt::format("{:.3g}x ({})", f["best"].value("median", 0.0), f["best"].value("id", ""));
      const std::string state = f.value("retired", false)   ? "retired: " + f.value("retired_reason", "")
                                : f.value("in_beam", false) ? "in the beam"
                                                            : "active (outside the beam)";
      md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", f.value("name", ""), f.value("attempts", 0),
                        f.value("correct", 0), f.value("rejected", 0), best, state);
    }
  }
  const json& h = c["history"];
  md += fmt::format(
      "\n## History\n\n{} iterations, {} proposals: {} judged ({} correct, {} rejected), {} garbage, {} duplicates, {} "
      "discarded.\n",
      h.value("iterations_finished", 0), h.value("proposals", 0), h.value("judged", 0), h.value("correct", 0),
      h.value("rejected", 0), h.value("garbage", 0), h.value("duplicates", 0), h.value("discarded", 0));
  if (!h["recent"].empty()) {
    md += "\n| id | state | family | verdict | speedup |\n|---|---|---|---|---|\n";
    for (const auto& r : h["recent"])
      md += fmt::format("| {} | {} | {} | {} | {} |\n", r.value("id", ""), r.value("state", ""), str_or(r, "family"),
                        str_or(r, "status"), fmt_speedup(r.value("speedup", json())));
  }
  md += "\n## The candidate ABI (`kjudge/candidate.h`)\n\n```c\n" + c["abi"].value("header", "") + "```\n";
  md += fmt::format("\nHelpers for f32/bf16 I/O, argument checks and a vectorisable exp: `{}`.\n",
                    c["abi"].value("helpers_path", ""));
  return md;
}

}  // namespace kjudge::loop
