#include "loop/state.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/error.hpp"
#include "core/json_path.hpp"
#include "core/verdict_status.hpp"

namespace kjudge::loop {

using json = nlohmann::json;

namespace {

json or_null(const json* p) {
  return p != nullptr ? *p : json();
}

}  // namespace

std::string judge_profile::key() const {
  return fmt::format("{:.3f}s/{}r", timing_budget_s, min_rounds);
}

json judge_profile::to_json() const {
  return json{{"timing_budget_s", timing_budget_s}, {"min_rounds", min_rounds}};
}

judge_profile judge_profile::from_json(const json& j) {
  judge_profile p;
  if (!j.is_object()) return p;
  p.timing_budget_s = j.value("timing_budget_s", p.timing_budget_s);
  p.min_rounds = j.value("min_rounds", p.min_rounds);
  return p;
}

json summarize_result(const json& r) {
  json s = json::object();
  s["status"] = string_at(r, {"verdict", "status"}).value_or("");
  s["rule"] = or_null(json_at(r, {"verdict", "rule"}));
  json reasons = json::array();
  if (const json* rs = json_at(r, {"verdict", "reasons"}); rs != nullptr && rs->is_array())
    for (std::size_t i = 0; i < rs->size() && i < 3; ++i) reasons.push_back((*rs)[i]);
  s["reasons"] = reasons;
  const json* info = json_at(r, {"candidate", "info"});
  const std::string info_s = info != nullptr && info->is_string() ? info->get<std::string>() : "";
  s["info"] = info_s;
  const info_fields f = parse_info(info_s);
  s["family"] = f.family;
  s["notes"] = f.notes;
  s["median"] = or_null(json_at(r, {"speedup", "median"}));
  const json* ci = json_at(r, {"speedup", "ci95"});
  if (ci != nullptr && ci->is_array() && ci->size() == 2) {
    s["lo"] = (*ci)[0];
    s["hi"] = (*ci)[1];
  } else {
    s["lo"] = nullptr;
    s["hi"] = nullptr;
  }
  s["baseline"] = or_null(json_at(r, {"speedup", "baseline"}));
  json cases = json::array();
  double log_time = 0.0, log_frac = 0.0;
  int n_time = 0, n_frac = 0;
  if (const json* tc = json_at(r, {"timing", "cases"}); tc != nullptr && tc->is_array()) {
    for (const auto& c : *tc) {
      json e{{"id", c.value("id", "")}, {"shape", c.value("shape", "")}};
      e["median_s"] = or_null(json_at(c, {"candidate", "median_s"}));
      e["strongest"] = or_null(json_at(c, {"strongest"}));
      e["speedup"] = or_null(json_at(c, {"speedup"}));
      e["gbps"] = or_null(json_at(c, {"achieved", "gbps"}));
      e["gflops"] = or_null(json_at(c, {"achieved", "gflops"}));
      e["fraction_of_ceiling"] = or_null(json_at(c, {"achieved", "fraction_of_ceiling"}));
      if (e["median_s"].is_number() && e["median_s"].get<double>() > 0) {
        log_time += std::log(e["median_s"].get<double>());
        ++n_time;
      }
      if (e["fraction_of_ceiling"].is_number() && e["fraction_of_ceiling"].get<double>() > 0) {
        log_frac += std::log(e["fraction_of_ceiling"].get<double>());
        ++n_frac;
      }
      cases.push_back(std::move(e));
    }
  }
  s["cases"] = cases;
  s["time_s"] = n_time > 0 ? json(std::exp(log_time / n_time)) : json();
  // Null on cpu: there is no measured ceiling there (DESIGN.md §4).
  s["fraction_of_speed_of_light"] = n_frac > 0 ? json(std::exp(log_frac / n_frac)) : json();
  s["peak_memory_bytes"] = or_null(json_at(r, {"memory", "candidate_peak_bytes"}));
  s["baseline_peak_memory_bytes"] = or_null(json_at(r, {"memory", "baseline_peak_bytes"}));
  s["ptxas"] = or_null(json_at(r, {"build", "resources"}));
  json failing = or_null(json_at(r, {"verdict", "evidence", "case"}));
  if (failing.is_null())
    if (const json* cs = json_at(r, {"cases"}); cs != nullptr && cs->is_array())
      for (const auto& c : *cs)
        if (c.value("status", "pass") != "pass" && c.value("status", "pass") != "skipped") {
          failing = c;
          break;
        }
  s["failing_case"] = failing;
  s["time_to_verdict_s"] = or_null(json_at(r, {"time_to_verdict_s"}));
  return s;
}

json family_to_json(const family_record& f) {
  return json{{"name", f.name},
              {"attempts", f.attempts},
              {"correct", f.correct},
              {"rejected", f.rejected},
              {"rejections", f.rejections},
              {"best", f.best ? to_json(*f.best) : json()},
              {"latest", f.latest_id},
              {"in_beam", f.in_beam},
              {"retired", f.retired},
              {"retired_reason", f.retired_reason},
              {"retired_at", f.retired_at}};
}

family_record family_from_json(const json& j) {
  family_record f;
  f.name = j.value("name", "");
  f.attempts = j.value("attempts", 0);
  f.correct = j.value("correct", 0);
  f.rejected = j.value("rejected", 0);
  if (j.contains("rejections") && j["rejections"].is_object())
    f.rejections = j["rejections"].get<std::map<std::string, int>>();
  if (j.contains("best") && j["best"].is_object()) f.best = scored_from_json(j["best"]);
  f.latest_id = j.value("latest", "");
  f.in_beam = j.value("in_beam", false);
  f.retired = j.value("retired", false);
  f.retired_reason = j.value("retired_reason", "");
  f.retired_at = j.value("retired_at", 0);
  return f;
}

json member_to_json(const beam_member& m) {
  json j = to_json(m.c);
  j["near_miss"] = m.near_miss;
  j["rank"] = m.rank;
  return j;
}

beam_member member_from_json(const json& j) {
  beam_member m;
  m.c = scored_from_json(j);
  m.near_miss = j.value("near_miss", false);
  m.rank = j.value("rank", 0);
  return m;
}

const proposal* loop_state::find(const std::string& id) const {
  auto it = by_id.find(id);
  return it == by_id.end() ? nullptr : &proposals[it->second];
}

proposal* loop_state::find(const std::string& id) {
  auto it = by_id.find(id);
  return it == by_id.end() ? nullptr : &proposals[it->second];
}

const json* loop_state::effective_summary(const proposal& p) const {
  if (p.state == "judged") return &p.summary;
  if (p.state == "duplicate") {
    const proposal* o = find(p.duplicate_of);
    if (o != nullptr && o->state == "judged") return &o->summary;
  }
  return nullptr;
}

void loop_state::apply(const json& ev) {
  const std::string kind = ev.value("event", "");
  auto bad = [&](const std::string& why) { throw usage_error("journal event '" + kind + "': " + why); };
  if (kind == "started") {
    config = ev.value("config", json::object());
  } else if (kind == "resumed") {
    stop_reason.clear();
    if (ev.contains("overrides") && ev["overrides"].is_object()) config.update(ev["overrides"]);
  } else if (kind == "iteration") {
    iteration_record r;
    r.iteration = ev.value("iteration", 0);
    r.req = request::from_json(ev.value("request", json::object()));
    r.context = ev.value("context", "");
    if (r.req.kind == "new_family") plateau.last_new_family_request = r.iteration;
    iterations[r.iteration] = std::move(r);
  } else if (kind == "proposed") {
    const int it = ev.value("iteration", 0);
    auto rec = iterations.find(it);
    if (rec == iterations.end()) bad("iteration " + std::to_string(it) + " was never started");
    rec->second.proposer = ev.value("proposer", json::object());
    rec->second.proposed = true;
    for (const auto& pj : ev.value("proposals", json::array())) {
      proposal p;
      p.id = pj.value("id", "");
      p.iteration = it;
      p.index = pj.value("index", 0);
      p.name = pj.value("name", "");
      p.file = pj.value("file", "");
      p.sha256 = pj.value("sha256", "");
      p.state = pj.value("state", "pending");
      p.reason = pj.value("reason", "");
      p.duplicate_of = pj.value("duplicate_of", "");
      p.meta = pj.value("meta", json());
      p.profile = judge_profile::from_json(pj.value("profile", json()));
      if (p.id.empty() || by_id.count(p.id)) bad("proposal id '" + p.id + "' is empty or recorded twice");
      by_id[p.id] = proposals.size();
      rec->second.proposal_ids.push_back(p.id);
      proposals.push_back(std::move(p));
    }
  } else if (kind == "judged") {
    proposal* p = find(ev.value("id", ""));
    if (p == nullptr) bad("unknown proposal " + ev.value("id", std::string("?")));
    if (p->state == "judged") bad("proposal " + p->id + " judged twice");
    p->state = "judged";
    p->summary = ev.value("summary", json::object());
    judged_key[p->sha256 + "|" + p->profile.key()] = p->id;
    const std::string st = p->summary.value("status", "");
    if (!is_ok_status(st)) {
      latest_rejected_id = p->id;
      latest_rejected_family = p->summary.value("family", "unknown");
    }
  } else if (kind == "beam") {
    const int it = ev.value("iteration", 0);
    auto rec = iterations.find(it);
    if (rec == iterations.end()) bad("iteration " + std::to_string(it) + " was never started");
    rec->second.finished = true;
    rec->second.beam_event = ev;
    beam.clear();
    for (const auto& m : ev.value("beam", json::array())) beam.push_back(member_from_json(m));
    families.clear();
    for (const auto& f : ev.value("families", json::array())) {
      family_record r = family_from_json(f);
      families[r.name] = std::move(r);
    }
    if (ev.contains("best") && ev["best"].is_object())
      best = scored_from_json(ev["best"]);
    else
      best.reset();
    if (ev.contains("plateau")) {
      plateau.last_improvement = ev["plateau"].value("last_improvement", 0);
      plateau.last_new_family_request = ev["plateau"].value("last_new_family_request", 0);
    }
    elapsed_s = ev.value("elapsed_s", elapsed_s);
    ++finished_iterations;
    if (ev.contains("accept") && ev["accept"].is_object()) accepts.push_back(ev["accept"]);
  } else if (kind == "committed") {
    commits[ev.value("id", "")] = ev.value("commit", "");
  } else if (kind == "stopped") {
    stop_reason = ev.value("reason", "");
    elapsed_s = ev.value("elapsed_s", elapsed_s);
  } else {
    bad("unknown event");
  }
}

std::vector<scored_candidate> loop_state::pool() const {
  std::map<std::string, scored_candidate> latest;
  std::set<std::string> rejected;
  for (const auto& p : proposals) {
    if (p.state != "judged") continue;
    const std::string st = p.summary.value("status", "");
    if (!is_ok_status(st)) {
      rejected.insert(p.sha256);
      continue;
    }
    if (!p.summary["median"].is_number()) continue;
    scored_candidate c;
    c.id = p.id;
    c.sha256 = p.sha256;
    c.family = p.summary.value("family", "unknown");
    c.median = p.summary["median"].get<double>();
    c.with_ci = p.summary["lo"].is_number() && p.summary["hi"].is_number();
    c.lo = c.with_ci ? p.summary["lo"].get<double>() : c.median;
    c.hi = c.with_ci ? p.summary["hi"].get<double>() : c.median;
    c.time_s = p.summary["time_s"].is_number() ? p.summary["time_s"].get<double>() : 0.0;
    c.iteration = p.iteration;
    latest[p.sha256] = c;
  }
  std::vector<scored_candidate> out;
  for (auto& [sha, c] : latest)
    if (!rejected.count(sha)) out.push_back(c);
  return out;
}

}  // namespace kjudge::loop
