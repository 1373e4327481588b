#include "loop/proposer.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <thread>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/subprocess.hpp"
#include "core/verdict_status.hpp"
#include "loop/halving.hpp"
#include "loop/journal.hpp"
#include "stats/stats.hpp"

namespace kjudge::loop {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr std::string_view k_autotune = "autotune:";
constexpr std::string_view k_dir = "dir:";

bool starts_with(const std::string& s, std::string_view p) {
  return s.rfind(p, 0) == 0;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const auto c = std::min(s.find(',', pos), s.size());
    if (c > pos) out.push_back(s.substr(pos, c - pos));
    pos = c + 1;
  }
  return out;
}

std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// ---------------------------------------------------------------- command ---------------------

class command_proposer final : public proposer {
 public:
  command_proposer(std::string command, const json& config)
      : m_command(std::move(command)),
        m_cwd(config.value("cwd", std::string())),
        m_timeout_s(config.value("proposer_timeout_s", 900.0)),
        m_config(config) {}

  proposer_result propose(const proposer_input& in) override {
    command_options o;
    o.timeout_seconds = m_timeout_s;
    if (!m_cwd.empty() && fs::is_directory(m_cwd)) o.cwd = m_cwd;
    o.extra_env = {{"KJUDGE_CONTEXT", in.context.string()},
                   {"KJUDGE_BRIEF", in.brief.string()},
                   {"KJUDGE_OUTPUT_DIR", in.out_dir.string()},
                   {"KJUDGE_WORKDIR", in.workdir.string()},
                   {"KJUDGE_ITERATION", std::to_string(in.iteration)},
                   {"KJUDGE_PROTOCOL", "1"},
                   {"KJUDGE_PROBLEM", m_config.value("problem_name", std::string())},
                   {"KJUDGE_DEVICE", m_config.value("device", std::string("cpu"))}};
    proposer_result r;
    command_result c;
    try {
      c = run_command({"/bin/sh", "-c", m_command}, o);
    } catch (const std::exception& e) {
      r.status = "error";
      r.message = std::string("could not run the proposer: ") + e.what();
      return r;
    }
    r.seconds = c.seconds;
    r.exit_status = c.exit_status;
    r.signal = c.signal;
    try {
      write_file_atomic(in.log, c.output);
    } catch (const std::exception&) {
      // The log is a convenience; the journal holds the outcome.
    }
    if (c.timed_out) {
      r.status = "timeout";
      r.message = fmt::format("killed after the {:.0f} s proposer time limit", m_timeout_s);
    } else if (c.signal != 0) {
      r.status = "crash";
      r.message = fmt::format("killed by signal {}", c.signal);
    } else if (c.exit_status != 0) {
      r.status = "crash";
      r.message = fmt::format("exited with status {}", c.exit_status);
    }
    if (r.status != "ok") {
      std::string tail = c.output.size() > 400 ? c.output.substr(c.output.size() - 400) : c.output;
      if (!tail.empty()) r.message += "; output ends: " + tail;
    }
    for (const auto& p : sorted_entries(in.out_dir)) r.files.push_back(produced_file{p, json::object(), std::nullopt});
    return r;
  }

 private:
  std::string m_command;
  std::string m_cwd;
  double m_timeout_s;
  json m_config;
};

// ---------------------------------------------------------------- dir ---------------------------

class dir_proposer final : public proposer {
 public:
  dir_proposer(fs::path dir, const json& config)
      : m_dir(std::move(dir)), m_timeout_s(config.value("proposer_timeout_s", 900.0)) {}

  proposer_result propose(const proposer_input& in) override {
    forget_consumed(*in.state);
    proposer_result r;
    const auto t0 = std::chrono::steady_clock::now();
    std::map<fs::path, std::pair<std::uintmax_t, fs::file_time_type>> seen;
    bool announced = false;
    while (true) {
      std::vector<fs::path> stable;
      std::map<fs::path, std::pair<std::uintmax_t, fs::file_time_type>> now;
      for (const auto& p : sorted_entries(m_dir)) {
        const std::string name = p.filename().string();
        // Dot files and *.tmp are writes in progress: write there, then rename (docs/proposer.md).
        if (name.empty() || name[0] == '.' || name.ends_with(".tmp") || name.ends_with("~")) continue;
        std::error_code ec;
        const auto st = fs::symlink_status(p, ec);
        if (ec || fs::is_directory(st)) continue;
        const auto size = fs::is_regular_file(st) ? fs::file_size(p, ec) : 0;
        const auto mtime = fs::last_write_time(p, ec);
        now[p] = {size, mtime};
        auto it = seen.find(p);
        if (it != seen.end() && it->second == now[p]) stable.push_back(p);
      }
      seen = std::move(now);
      if (!stable.empty()) {
        for (const auto& p : stable) {
          const fs::path dst = in.out_dir / p.filename();
          std::error_code ec;
          if (fs::is_regular_file(fs::symlink_status(p, ec)))
            fs::copy_file(p, dst, fs::copy_options::overwrite_existing, ec);
          json meta{{"dropped", p.string()}};
          if (!ec && fs::exists(dst)) {
            try {
              meta["dropped_sha256"] = sha256_hex(read_file(dst));
            } catch (const std::exception&) {
            }
          }
          r.files.push_back(produced_file{fs::exists(dst) ? dst : p, meta, std::nullopt});
        }
        break;
      }
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (waited >= m_timeout_s) {
        r.message = fmt::format("no file arrived in {} within {:.0f} s", m_dir.string(), m_timeout_s);
        break;
      }
      if (!announced) {
        std::fprintf(stderr,
                     "[loop] waiting for candidate files in %s (write elsewhere or to a dot file, then rename)\n",
                     m_dir.c_str());
        announced = true;
      }
      // 0.5 s: a person or an agent drops files at human pace; two polls make a file "stable".
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

  void recorded(const std::vector<produced_file>& files, const loop_state& /*state*/) override {
    for (const auto& f : files) remove_if_unchanged(f.meta);
  }

 private:
  // A file consumed by a run killed before it could delete the original: delete it now.
  void forget_consumed(const loop_state& st) {
    for (const auto& p : st.proposals)
      if (p.meta.is_object() && p.meta.contains("dropped")) remove_if_unchanged(p.meta);
  }

  // Deletes the dropped original only if it still holds what was consumed, so a new file written
  // under the same name in between is not lost.
  static void remove_if_unchanged(const json& meta) {
    if (!meta.is_object() || !meta.contains("dropped")) return;
    const fs::path src = meta["dropped"].get<std::string>();
    std::error_code ec;
    const auto st = fs::symlink_status(src, ec);
    if (ec || !fs::exists(st)) return;
    if (!fs::is_regular_file(st)) {
      fs::remove(src, ec);
      return;
    }
    try {
      if (sha256_hex(read_file(src)) == meta.value("dropped_sha256", std::string())) fs::remove(src, ec);
    } catch (const std::exception&) {
    }
  }

  fs::path m_dir;
  double m_timeout_s;
};

// ---------------------------------------------------------------- autotune ----------------------

class autotune_proposer final : public proposer {
 public:
  autotune_proposer(const std::vector<fs::path>& templates, const json& config)
      : m_max_configs(config.value("autotune_max_configs", std::size_t{64})) {
    for (const auto& t : templates) m_templates.push_back(parse_template(t));
  }

  proposer_result propose(const proposer_input& in) override {
    proposer_result r;
    const auto t0 = std::chrono::steady_clock::now();
    // Templates in order; on a plateau ("new_family") the ones not started yet come first, so a
    // second template of another algorithm family gets its turn early.
    std::vector<std::size_t> order;
    const auto rec = in.state->iterations.find(in.iteration);
    const bool new_family = rec != in.state->iterations.end() && rec->second.req.kind == "new_family";
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t ti = 0; ti < m_templates.size(); ++ti) {
        const bool fresh = !started(ti, *in.state);
        if (!new_family ? pass == 0 : (pass == 0) == fresh) order.push_back(ti);
      }
    for (std::size_t ti : order) {
      const auto plan = plan_for(ti, *in.state);
      if (!plan) continue;
      const auto& t = m_templates[ti];
      const judge_profile prof = rung_profile(*plan, in.full_profile);
      int n = 0;
      for (const auto& key : plan->keys) {
        const auto c = config_from_key(t, key);
        if (!c) continue;
        const fs::path file =
            in.out_dir / fmt::format("{}-{:03d}{}", t.path.stem().string(), n++, t.path.extension().string());
        write_file_atomic(file, instantiate(t, *c));
        json meta{{"autotune",
                   {{"template", t.path.string()},
                    {"template_sha256", t.sha256},
                    {"config", key},
                    {"rung", plan->rung},
                    {"planned_rungs", plan->planned_rungs},
                    {"budget_fraction", plan->budget_fraction}}}};
        r.files.push_back(produced_file{file, meta, prof});
      }
      // What the ranking rests on, said plainly: the configurations are ordered by their median
      // time, and below six rounds a median has no 95% CI (stats::min_rounds_for_ci95).
      const std::string basis =
          prof.min_rounds >= stats::min_rounds_for_ci95
              ? fmt::format("ranked by the median time of >= {} rounds", prof.min_rounds)
              : fmt::format(
                    "ranked by the median time of {} rounds: an estimate without a CI (the range of {} rounds "
                    "covers their median with probability {:.0f}%)",
                    prof.min_rounds, prof.min_rounds, 100.0 * stats::range_coverage(prof.min_rounds));
      r.message = fmt::format("{}: rung {} of {} planned, {} configuration(s), timing budget {:.2f} s; {}",
                              t.path.filename().string(), plan->rung + 1, plan->planned_rungs, plan->keys.size(),
                              prof.timing_budget_s, basis);
      break;
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

  bool finished(const loop_state& st) const override {
    for (std::size_t ti = 0; ti < m_templates.size(); ++ti)
      if (plan_for(ti, st)) return false;
    return true;
  }

 private:
  bool started(std::size_t ti, const loop_state& st) const {
    for (const auto& p : st.proposals)
      if (p.meta.is_object() && p.meta.contains("autotune") &&
          p.meta["autotune"].value("template_sha256", std::string()) == m_templates[ti].sha256)
        return true;
    return false;
  }

  // The next rung of template `ti`, rebuilt from the judged proposals in the state: the search
  // holds no state of its own, so a resumed loop continues exactly where it was.
  std::optional<rung_plan> plan_for(std::size_t ti, const loop_state& st) const {
    const auto& t = m_templates[ti];
    std::vector<std::string> initial;
    std::uint64_t seed = std::stoull(t.sha256.substr(0, 16), nullptr, 16);
    for (const auto& c : initial_configs(t, m_max_configs, seed)) initial.push_back(config_key(t, c));
    std::vector<std::vector<rung_result>> done;
    for (const auto& p : st.proposals) {
      if (!p.meta.is_object() || !p.meta.contains("autotune")) continue;
      const auto& a = p.meta["autotune"];
      if (a.value("template_sha256", std::string()) != t.sha256) continue;
      const auto rung = static_cast<std::size_t>(a.value("rung", 0));
      if (done.size() <= rung) done.resize(rung + 1);
      rung_result rr;
      rr.key = a.value("config", std::string());
      const json* s = st.effective_summary(p);
      // Configurations of one template are ranked by their own time (geometric mean over the
      // bench cases of the median, seconds), not by the speedup: the strongest baseline's time
      // varies from one judgement to the next (an OpenMP baseline on a shared machine) and its
      // noise would enter every ratio; the configurations all compute the same thing.
      if (s != nullptr && is_ok_status(s->value("status", ""))) {
        const json t = s->value("time_s", json());
        const json m = s->value("median", json());
        if (t.is_number() && t.get<double>() > 0) {
          rr.correct = true;
          rr.score = 1.0 / t.get<double>();
        } else if (m.is_number()) {
          rr.correct = true;
          rr.score = m.get<double>();
        }
      }
      done[rung].push_back(rr);
    }
    return next_rung(initial, done, halving_params{});
  }

  std::vector<tuning_template> m_templates;
  std::size_t m_max_configs;
};

}  // namespace

// The full budget times eta^-(rungs left), as successive halving
// prescribes, but never below 0.2 s and 3 rounds (a CI needs a few rounds). When that floor
// flattens the schedule, the budgets are spread geometrically between the floor and the full
// budget instead, so every rung is judged with strictly more than the one before (else the
// re-judgement would be a duplicate of the same source with the same budget).
judge_profile rung_profile(const rung_plan& plan, const judge_profile& full) {
  constexpr double k_min_budget_s = 0.2;
  constexpr int k_min_rounds = 3;
  if (plan.budget_fraction >= 1.0 || plan.planned_rungs <= 1) return full;
  const int last = plan.planned_rungs - 1;
  const double first_fraction = std::pow(2.0, -last);  // halving_params{}.eta == 2
  const double b0 = std::min(full.timing_budget_s, std::max(k_min_budget_s, full.timing_budget_s * first_fraction));
  const double r0 =
      std::min<double>(full.min_rounds, std::max<double>(k_min_rounds, std::ceil(full.min_rounds * first_fraction)));
  const double t = std::min(1.0, static_cast<double>(plan.rung) / last);
  judge_profile p;
  p.timing_budget_s = std::round(b0 * std::pow(full.timing_budget_s / b0, t) * 1000) / 1000;
  p.min_rounds = static_cast<int>(std::lround(r0 * std::pow(full.min_rounds / r0, t)));
  return p;
}

std::unique_ptr<proposer> make_proposer(const std::string& spec, const json& config) {
  if (starts_with(spec, k_autotune)) {
    std::vector<fs::path> ts;
    for (const auto& s : split_commas(spec.substr(k_autotune.size()))) ts.emplace_back(s);
    if (ts.empty()) throw usage_error("--proposer " + spec + ": expected autotune:TEMPLATE[,TEMPLATE...]");
    return std::make_unique<autotune_proposer>(ts, config);
  }
  if (starts_with(spec, k_dir)) {
    const fs::path d = spec.substr(k_dir.size());
    if (!fs::is_directory(d)) throw usage_error("--proposer " + spec + ": " + d.string() + " is not a directory");
    return std::make_unique<dir_proposer>(d, config);
  }
  if (spec.find_first_not_of(" \t") == std::string::npos) throw usage_error("--proposer: empty command");
  return std::make_unique<command_proposer>(spec, config);
}

void check_proposer_spec(const std::string& spec) {
  if (starts_with(spec, k_autotune)) {
    const auto ts = split_commas(spec.substr(k_autotune.size()));
    if (ts.empty()) throw usage_error("--proposer " + spec + ": expected autotune:TEMPLATE[,TEMPLATE...]");
    for (const auto& t : ts) parse_template(t);
  } else if (starts_with(spec, k_dir)) {
    if (spec.size() == k_dir.size()) throw usage_error("--proposer " + spec + ": expected dir:PATH");
  } else if (spec.find_first_not_of(" \t") == std::string::npos) {
    throw usage_error("--proposer: empty command");
  }
}

std::string resolve_proposer_spec(const std::string& spec, const fs::path& workdir, const fs::path& cwd) {
  if (starts_with(spec, k_autotune)) {
    std::string out(k_autotune);
    int i = 0;
    for (const auto& t : split_commas(spec.substr(k_autotune.size()))) {
      const fs::path src = fs::path(t).is_absolute() ? fs::path(t) : cwd / t;
      const tuning_template tt = parse_template(src);
      const fs::path dst = workdir / "templates" / std::to_string(i++) / src.filename();
      write_file_atomic(dst, tt.text);
      out += (out.size() == k_autotune.size() ? "" : ",") + dst.string();
    }
    return out;
  }
  if (starts_with(spec, k_dir)) {
    fs::path d = spec.substr(k_dir.size());
    if (!d.is_absolute()) d = cwd / d;
    std::error_code ec;
    fs::create_directories(d, ec);
    if (ec) throw usage_error("--proposer " + spec + ": cannot create " + d.string() + ": " + ec.message());
    return std::string(k_dir) + fs::weakly_canonical(d).string();
  }
  return spec;
}

}  // namespace kjudge::loop
