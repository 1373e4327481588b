#include "loop/beam.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include "core/verdict_status.hpp"

namespace kjudge::loop {

namespace {

bool better(const scored_candidate& a, const scored_candidate& b) {
  if (a.median != b.median) return a.median > b.median;
  if (a.lo != b.lo) return a.lo > b.lo;
  if (a.iteration != b.iteration) return a.iteration < b.iteration;
  return a.id < b.id;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string speedup_text(const scored_candidate& c) {
  return fmt::format("{:.3g}x ({})", c.median, c.id);
}

}  // namespace

std::vector<beam_member> select_beam(std::vector<scored_candidate> pool, const beam_params& p) {
  std::sort(pool.begin(), pool.end(), better);
  const std::size_t k = static_cast<std::size_t>(std::max(1, p.k));
  const int cap = std::max(1, p.k / 2);
  std::vector<bool> taken(pool.size(), false);
  std::map<std::string, int> count;
  std::vector<beam_member> beam;
  // Pass 1: the cap holds. Pass 2 fills what is left: every candidate still out belongs to a
  // capped family, so no other family is available any more.
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < pool.size() && beam.size() < k; ++i) {
      if (taken[i]) continue;
      if (pass == 0 && count[pool[i].family] >= cap) continue;
      taken[i] = true;
      ++count[pool[i].family];
      beam.push_back(beam_member{pool[i], false, 0});
    }
  std::sort(beam.begin(), beam.end(), [](const beam_member& a, const beam_member& b) { return better(a.c, b.c); });
  if (!beam.empty()) {
    const double floor = beam.front().c.median * (1.0 - p.near_miss_margin);
    for (std::size_t i = 0; i < pool.size(); ++i) {
      if (taken[i] || count[pool[i].family] > 0) continue;
      if (pool[i].median < floor) continue;
      taken[i] = true;
      ++count[pool[i].family];  // pool is sorted: the family's best comes first
      beam.push_back(beam_member{pool[i], true, 0});
    }
  }
  for (std::size_t i = 0; i < beam.size(); ++i) beam[i].rank = static_cast<int>(i) + 1;
  return beam;
}

std::vector<std::string> update_families(std::map<std::string, family_record>& families,
                                         const std::vector<attempt>& new_attempts,
                                         const std::vector<scored_candidate>& pool,
                                         const std::vector<beam_member>& beam, const beam_params& p, int iteration) {
  for (const auto& a : new_attempts) {
    auto& f = families[a.family];
    f.name = a.family;
    ++f.attempts;
    if (is_ok_status(a.status))
      ++f.correct;
    else {
      ++f.rejected;
      ++f.rejections[a.status];
    }
    f.latest_id = a.id;
  }
  for (auto& [name, f] : families) f.best.reset();
  for (const auto& c : pool) {
    auto it = families.find(c.family);
    if (it == families.end()) continue;
    if (!it->second.best || better(c, *it->second.best)) it->second.best = c;
  }
  std::vector<std::string> changes;
  const scored_candidate* top = beam.empty() ? nullptr : &beam.front().c;
  const beam_member* last_selected = nullptr;
  for (const auto& m : beam)
    if (!m.near_miss) last_selected = &m;
  for (auto& entry : families) {
    const std::string& name = entry.first;  // a named reference: lambdas cannot capture a binding in C++20
    auto& f = entry.second;
    f.in_beam = std::any_of(beam.begin(), beam.end(), [&](const beam_member& m) { return m.c.family == name; });
    if (f.in_beam) {
      if (f.retired) {
        f.retired = false;
        f.retired_reason.clear();
        f.retired_at = 0;
        changes.push_back("revived:" + name);
      }
      continue;
    }
    if (f.retired || f.attempts < p.retire_after) continue;
    f.retired = true;
    f.retired_at = iteration;
    if (!f.best) {
      std::string why;
      for (const auto& [status, n] : f.rejections) why += fmt::format("{}{} x{}", why.empty() ? "" : ", ", status, n);
      f.retired_reason = fmt::format("all {} attempts rejected ({})", f.attempts, why);
    } else {
      f.retired_reason = fmt::format(
          "best {} is below the beam's last member {} and more than {:.0f}% below the best {}, after {} attempts "
          "({} correct, {} rejected)",
          speedup_text(*f.best), last_selected != nullptr ? speedup_text(last_selected->c) : std::string("-"),
          p.near_miss_margin * 100.0, top != nullptr ? speedup_text(*top) : std::string("-"), f.attempts, f.correct,
          f.rejected);
    }
    changes.push_back("retired:" + name);
  }
  return changes;
}

bool improves_beyond_noise(const std::optional<scored_candidate>& previous_best, const scored_candidate& now) {
  if (!previous_best) return true;
  if (previous_best->sha256 == now.sha256) return false;
  if (previous_best->with_ci) return now.median > previous_best->hi;
  return now.with_ci && now.lo > previous_best->median;
}

nlohmann::json request::to_json() const {
  nlohmann::json j{{"kind", kind}, {"reason", reason}};
  if (!target_id.empty()) j["target"] = target_id;
  if (!family.empty()) j["family"] = family;
  if (kind == "new_family") j["avoid_families"] = avoid_families;
  return j;
}

request request::from_json(const nlohmann::json& j) {
  request r;
  r.kind = j.value("kind", "");
  r.reason = j.value("reason", "");
  r.target_id = j.value("target", "");
  r.family = j.value("family", "");
  if (j.contains("avoid_families")) r.avoid_families = j["avoid_families"].get<std::vector<std::string>>();
  return r;
}

request choose_request(int iteration, const std::vector<beam_member>& beam,
                       const std::map<std::string, family_record>& families, const plateau_state& plateau,
                       int plateau_iterations, const std::string& latest_rejected_id,
                       const std::string& latest_rejected_family) {
  request r;
  if (beam.empty()) {
    if (!latest_rejected_id.empty()) {
      r.kind = "fix";
      r.target_id = latest_rejected_id;
      r.family = latest_rejected_family;
      r.reason = "no correct candidate yet: fix the latest rejected one, or propose another";
    } else {
      r.kind = "initial";
      r.reason = "no candidate yet: propose a first correct one";
    }
    return r;
  }
  const int quiet = iteration - 1 - std::max(plateau.last_improvement, plateau.last_new_family_request);
  if (plateau_iterations > 0 && quiet >= plateau_iterations) {
    r.kind = "new_family";
    for (const auto& [name, f] : families) r.avoid_families.push_back(name);
    r.reason = fmt::format(
        "plateau: no improvement beyond the CI's noise for {} iterations (best {:.3g}x [{:.3g}, {:.3g}], {}); propose "
        "a "
        "structurally different algorithm family",
        quiet, beam.front().c.median, beam.front().c.lo, beam.front().c.hi, beam.front().c.id);
    return r;
  }
  std::vector<const scored_candidate*> targets;
  for (const auto& m : beam) targets.push_back(&m.c);
  for (const auto& [name, f] : families)
    if (!f.in_beam && !f.retired && f.best) targets.push_back(&*f.best);
  std::size_t pick = 0;
  if (iteration % 2 == 1 && targets.size() > 1)
    pick = 1 + static_cast<std::size_t>(iteration / 2) % (targets.size() - 1);
  r.kind = "improve";
  r.target_id = targets[pick]->id;
  r.family = targets[pick]->family;
  r.reason = pick == 0 ? fmt::format("improve the best candidate ({:.3g}x)", targets[pick]->median)
                       : fmt::format("improve a member of another line of descent ({:.3g}x, family {})",
                                     targets[pick]->median, targets[pick]->family);
  return r;
}

info_fields parse_info(const std::string& info) {
  info_fields f;
  std::size_t pos = 0;
  while (pos <= info.size()) {
    const auto end = std::min(info.find(';', pos), info.size());
    const std::string field = info.substr(pos, end - pos);
    const auto eq = field.find('=');
    if (eq != std::string::npos) {
      const std::string key = trim(field.substr(0, eq));
      if (key == "family")
        f.family = trim(field.substr(eq + 1));
      else if (key == "notes")
        f.notes = trim(info.substr(pos + eq + 1));  // notes run to the end: they may hold ';'
      if (key == "notes") break;
    }
    pos = end + 1;
  }
  if (f.family.empty()) f.family = "unknown";
  return f;
}

std::string family_from_source(const std::string& source) {
  static const std::regex re(R"re("[^"\n]*family=([A-Za-z0-9_.+-]+))re");
  std::smatch m;
  if (std::regex_search(source, m, re)) return m[1].str();
  return "unknown";
}

nlohmann::json to_json(const scored_candidate& c) {
  nlohmann::json j{{"id", c.id},           {"sha256", c.sha256}, {"family", c.family},      {"median", c.median},
                   {"ci95", {c.lo, c.hi}}, {"time_s", c.time_s}, {"iteration", c.iteration}};
  if (!c.with_ci) j["estimate_only"] = true;  // ci95 holds the median: no CI was measured
  return j;
}

scored_candidate scored_from_json(const nlohmann::json& j) {
  scored_candidate c;
  c.id = j.value("id", "");
  c.sha256 = j.value("sha256", "");
  c.family = j.value("family", "unknown");
  c.median = j.value("median", 0.0);
  if (j.contains("ci95") && j["ci95"].is_array() && j["ci95"].size() == 2) {
    c.lo = j["ci95"][0].get<double>();
    c.hi = j["ci95"][1].get<double>();
  }
  c.time_s = j.value("time_s", 0.0);
  c.iteration = j.value("iteration", 0);
  c.with_ci = !j.value("estimate_only", false);
  return c;
}

}  // namespace kjudge::loop
