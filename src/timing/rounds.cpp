#include "timing/rounds.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <string>

#include "inputs/distributions.hpp"
#include "pool/failure_verdict.hpp"
#include "stats/stats.hpp"
#include "timing/background.hpp"

namespace kjudge::timing {

namespace {

using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

double since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

}  // namespace

bool stopping_rule::another_round(int rounds, double elapsed_s, const std::function<bool()>& precise_now) const {
  if (rounds >= max_rounds) return false;
  if (rounds < min_rounds) return true;
  return !(elapsed_s > budget_s || precise_now());
}

bool stopping_rule::enough_samples(const std::vector<double>& xs, bool over_budget) const {
  return static_cast<int>(xs.size()) >= min_samples_per_round &&
         (over_budget || stats::median_ci_relative_halfwidth(xs) <= target_halfwidth);
}

bool stopping_rule::precise(const std::vector<std::vector<std::vector<double>>>& per_round) const {
  for (const auto& parties : per_round)
    for (std::size_t q = 1; q < parties.size(); ++q) {
      const auto s = stats::bootstrap_median_ratio(parties[q], parties[0], 0.95, 2000);
      if ((s.ci.hi - s.ci.lo) / 2 > target_halfwidth * s.median) return false;
    }
  return true;
}

int epoch_start_round(int epoch, int epochs, int min_rounds) {
  return epochs <= 0 ? 0 : epoch * min_rounds / epochs;
}

std::vector<int> recheck_indices(int count, int expected_samples, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> pick(0, std::max(0, expected_samples - 1));
  std::vector<int> at;
  for (int r = 0; r < count; ++r) at.push_back(pick(rng));
  std::sort(at.begin(), at.end(), std::greater<>());
  return at;
}

namespace {

// The rounds in progress: their figures so far and what the next round needs to know.
class rounds_run {
 public:
  rounds_run(std::vector<round_party>& parties, const std::vector<round_case>& cases, const round_settings& s,
             const round_hooks& hooks)
      : m_parties(parties),
        m_cases(cases),
        m_s(s),
        m_hooks(hooks),
        m_rng(mix_seed(s.secret, 0x7265636865636bULL)),
        m_last_round_samples(cases.size(), 0) {
    const std::size_t np = parties.size(), nc = cases.size();
    for (auto* f : {&m_f.per_round, &m_f.all_samples, &m_f.all_mhz})
      f->assign(nc, std::vector<std::vector<double>>(np));
  }

  or_verdict<round_figures> run();

 private:
  // One party's samples of one case in the round being timed.
  struct party_samples {
    std::vector<double> kept, set_aside;
    std::vector<std::pair<double, double>> clocked;  // cuda: (seconds, SM MHz)
  };
  // One case of the round being timed.
  struct case_round {
    std::size_t c = 0;
    std::string ctx;
    std::vector<party_samples> samples;
    std::vector<int> recheck_at;
    int checks_left = 0;
    clock_type::time_point t0;
    double budget_s = 0;
  };

  std::optional<verdict> time_case(std::size_t c, double slot_budget_s);
  std::optional<verdict> sample_index(case_round& cr, int i, bool& done);
  std::optional<verdict> end_case(case_round& cr);
  void note_start_latency_excess(const std::vector<double>& latency_of);
  void keep_unthrottled(std::size_t c, std::size_t q, party_samples& ps);

  std::vector<round_party>& m_parties;
  const std::vector<round_case>& m_cases;
  const round_settings& m_s;
  const round_hooks& m_hooks;
  std::mt19937_64 m_rng;
  std::vector<int> m_last_round_samples;  // the candidate's timed calls per case in the last round
  round_figures m_f;
};

or_verdict<round_figures> rounds_run::run() {
  const auto t0 = clock_type::now();
  const std::size_t work = m_parties.size() * m_cases.size();
  int epoch = 0;
  for (;;) {
    if (epoch + 1 < m_s.epochs && m_f.rounds == epoch_start_round(epoch + 1, m_s.epochs, m_s.stop.min_rounds)) {
      const auto r0 = clock_type::now();
      if (auto v = m_hooks.start_epoch(++epoch)) return *v;
      m_f.restart_s += since(r0);
    }
    const double elapsed = since(t0) - m_f.restart_s;
    if (!m_s.stop.another_round(m_f.rounds, elapsed, [&] { return m_s.stop.precise(m_f.per_round); })) break;
    const int rounds_left = std::max(1, m_s.stop.min_rounds - m_f.rounds);
    const double round_budget = std::max(0.0, m_s.stop.budget_s - elapsed) / rounds_left;
    const double slot_budget = std::max(0.02, round_budget / static_cast<double>(work));
    if (m_hooks.progress) m_hooks.progress(m_f.rounds, "round " + std::to_string(m_f.rounds + 1));
    for (std::size_t c = 0; c < m_cases.size(); ++c)
      if (auto v = time_case(c, slot_budget)) return *v;
    ++m_f.rounds;
    m_f.epoch_of_round.push_back(epoch);
  }
  m_f.seconds = since(t0);
  return m_f;
}

// Samples are interleaved: sample i of every party, in a fresh shuffled order, on the same fresh
// inputs (seed of round, case and i), before sample i+1 of any. Drift and noise from the rest of
// the machine then fall on all parties alike, and each pair shares its data.
std::optional<verdict> rounds_run::time_case(std::size_t c, double slot_budget_s) {
  case_round cr;
  cr.c = c;
  cr.ctx = "timed calls of round " + std::to_string(m_f.rounds + 1) + " on " + m_cases[c].id;
  for (auto& p : m_parties) {
    auto r = p.client->time_begin(m_cases[c].call, m_s.mode, m_s.call_timeout_s, cr.ctx);
    if (!r.ok()) return r.rejection();
  }
  cr.samples.resize(m_parties.size());
  // Which of the round's timed calls are rechecked: drawn over the round's expected length (the
  // case's previous round, at least the minimum). Cheating on a fraction f of a case's timed calls
  // survives 10 rounds with probability (1 - f)^10 (f = 0.5, what moving a median takes: 0.1%).
  cr.checks_left = m_s.rechecks_per_round;
  cr.recheck_at =
      recheck_indices(cr.checks_left, std::max(m_s.stop.min_samples_per_round, m_last_round_samples[c]), m_rng);
  cr.t0 = clock_type::now();
  cr.budget_s = slot_budget_s * static_cast<double>(m_parties.size());
  for (int i = 0; i < m_s.stop.max_samples_per_round; ++i) {
    bool done = false;
    if (auto v = sample_index(cr, i, done)) return v;
    if (done) break;
  }
  return end_case(cr);
}

// The candidate's start latency at this sample index minus the largest baseline's: the parties
// ran one after another within the same window, so a load spike falls on one party and the
// largest baseline's latency absorbs most; only complete indices count.
void rounds_run::note_start_latency_excess(const std::vector<double>& latency_of) {
  double cand = -1, control = -1;
  for (std::size_t q = 0; q < m_parties.size(); ++q) {
    if (latency_of[q] < 0) return;
    if (m_parties[q].is_candidate)
      cand = latency_of[q];
    else
      control = std::max(control, latency_of[q]);
  }
  if (cand >= 0 && control >= 0) m_f.start_latency_excess.push_back(cand - control);
}

std::optional<verdict> rounds_run::sample_index(case_round& cr, int i, bool& done) {
  const std::size_t np = m_parties.size();
  std::vector<std::size_t> order(np);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), m_rng);
  call_spec sc = m_cases[cr.c].call;
  sc.seed =
      mix_seed(m_s.secret, (static_cast<std::uint64_t>(m_f.rounds) << 40) ^ (static_cast<std::uint64_t>(cr.c) << 32) ^
                               static_cast<std::uint64_t>(i) ^ 0x5a5a000000000000ULL);
  std::size_t keep_party = np;  // the candidate, when its sample i is to be rechecked
  std::vector<double> secs_of(np, -1.0);
  std::vector<double> latency_of(np, -1.0);  // armed samples: go-to-end minus the figure
  // CPU time of processes outside this evaluation while sample i of every party ran: the evidence
  // on which sample i is set aside, for every party at once. No party decides it: not by a count
  // it reports (a party could drop its own slow samples), nor by one it can provoke (its own
  // threads and processes are counted as its own).
  const machine_window window = machine_window::open(m_hooks.processes());
  const auto window_t0 = clock_type::now();
  for (std::size_t q : order) {
    round_party& p = m_parties[q];
    if (!p.is_candidate && m_hooks.before_other) m_hooks.before_other();
    const auto w0 = clock_type::now();
    auto r = p.client->sample(sc.seed, false, m_s.call_timeout_s, cr.ctx);
    const double wall = since(w0);
    if (!p.is_candidate && m_hooks.after_other) m_hooks.after_other(wall);
    if (!r.ok()) return r.rejection();
    const sample_reply& s = r.value();
    m_f.sample_s += wall;
    if (s.rc != 0) return rule_verdict("nonzero_return", {cr.ctx + ": kj_run returned " + s.doc["rc"].dump()});
    if (!(s.seconds >= 0) || s.seconds > wall + 1e-4)
      return rule_verdict("timer_tamper",
                          {cr.ctx + ": the worker reported " + std::to_string(s.seconds) +
                           " s for a call the controller saw take at most " + std::to_string(wall) + " s"});
    // Armed samples (cpu): the call started after the controller's go, so the worker cannot have
    // measured more than the controller's go-to-end time (1 us for the clocks' granularity).
    if (s.go_to_end_s >= 0) {
      if (s.seconds > s.go_to_end_s + 1e-6)
        return rule_verdict("timer_tamper", {cr.ctx + ": the worker reported " + std::to_string(s.seconds) +
                                             " s for a call that ended " + std::to_string(s.go_to_end_s) +
                                             " s after the controller's go"});
      latency_of[q] = s.go_to_end_s - s.seconds;
      m_f.start_latency[p.name].push_back(latency_of[q]);
    }
    m_f.wall_overhead.push_back(wall - s.seconds);
    secs_of[q] = s.seconds;
    if (s.extra.is_object() && s.extra.value("hold", std::string()) == "timed out") ++m_f.unblocked_samples[p.name];
    if (s.extra.is_object() && s.extra.contains("sm_mhz"))
      cr.samples[q].clocked.emplace_back(s.seconds,
                                         s.extra["sm_mhz"].is_number() ? s.extra["sm_mhz"].get<double>() : 0.0);
    // Whether this timed call is rechecked is decided only now, after it returned, so nothing in
    // the worker can know in advance which calls count.
    const bool keep = p.is_candidate && cr.checks_left > 0 && !cr.recheck_at.empty() && i >= cr.recheck_at.back();
    if (keep) {
      keep_party = q;  // judged after every party's sample i (below); its worker waits meanwhile
    } else if (auto d = p.client->discard(m_s.call_timeout_s, cr.ctx); !d.ok()) {
      return d.rejection();
    }
  }
  // A sample index during which other processes took a share of the machine is set aside for
  // every party; set-aside samples are used only if too few others come within the budget (a
  // saturated machine).
  const double foreign = window.foreign_seconds(m_hooks.processes());
  const bool disturbed = m_s.set_aside_by_load && foreign >= disturbance_share * since(window_t0);
  if (!disturbed) note_start_latency_excess(latency_of);
  const bool over_budget = since(cr.t0) > cr.budget_s;
  bool all_enough = true;
  for (std::size_t q = 0; q < np; ++q) {
    party_samples& ps = cr.samples[q];
    (disturbed ? ps.set_aside : ps.kept).push_back(secs_of[q]);
    if (disturbed) ++m_f.disturbed_samples;
    if (over_budget && static_cast<int>(ps.kept.size()) < m_s.stop.min_samples_per_round && !ps.set_aside.empty()) {
      ps.kept.insert(ps.kept.end(), ps.set_aside.begin(), ps.set_aside.end());
      m_f.used_disturbed += ps.set_aside.size();
      ps.set_aside.clear();
    }
    all_enough = all_enough && m_s.stop.enough_samples(ps.kept, over_budget);
  }
  // The recheck runs once every party has its sample i: its work and idle time then precede the
  // first sample of i + 1, a party drawn by the next shuffle, not the party that happened to
  // follow the candidate (on the H200 an A/A of batched_qr, whose reference runs ~0.3 s per
  // recheck, came out 0.9987 [0.9982, 0.9994] with the recheck in between).
  if (keep_party != np) {
    const auto t0 = clock_type::now();
    --cr.checks_left;
    cr.recheck_at.pop_back();
    if (auto v = m_hooks.recheck(recheck_request{keep_party, cr.c, sc, i, m_f.rounds})) return v;
    ++m_f.rechecks;
    m_f.recheck_s += since(t0);
  }
  done = all_enough && cr.checks_left == 0;
  return std::nullopt;
}

// cuda: samples taken while the SM clock was under 0.9x the party's median clock of the round are
// discarded and counted (contract §4); samples without a reading stay.
void rounds_run::keep_unthrottled(std::size_t c, std::size_t q, party_samples& ps) {
  std::vector<double> mhz;
  for (const auto& [secs, m] : ps.clocked)
    if (m > 0) mhz.push_back(m);
  if (mhz.empty()) return;
  const double med_mhz = stats::median(mhz);
  std::vector<double> kept;
  for (const auto& [secs, m] : ps.clocked) {
    if (m > 0 && m < 0.9 * med_mhz) {
      ++m_f.throttled_samples;
    } else {
      kept.push_back(secs);
      if (m > 0) m_f.all_mhz[c][q].push_back(m);
    }
  }
  if (static_cast<int>(kept.size()) >=
      std::min<int>(m_s.stop.min_samples_per_round, static_cast<int>(ps.clocked.size())))
    ps.kept = kept;
}

std::optional<verdict> rounds_run::end_case(case_round& cr) {
  for (std::size_t q = 0; q < m_parties.size(); ++q) {
    auto r = m_parties[q].client->time_end(m_s.call_timeout_s, cr.ctx);
    if (!r.ok()) return r.rejection();
    const json& done = r.value();
    if (done.contains("device_state") && !done["device_state"].is_null()) m_f.device_state_after = done["device_state"];
    party_samples& ps = cr.samples[q];
    if (!ps.clocked.empty()) keep_unthrottled(cr.c, q, ps);
    if (m_parties[q].is_candidate)
      m_last_round_samples[cr.c] =
          static_cast<int>(ps.clocked.empty() ? ps.kept.size() + ps.set_aside.size() : ps.clocked.size());
    m_f.per_round[cr.c][q].push_back(stats::median(ps.kept));
    m_f.all_samples[cr.c][q].insert(m_f.all_samples[cr.c][q].end(), ps.kept.begin(), ps.kept.end());
  }
  return std::nullopt;
}

}  // namespace

or_verdict<round_figures> run_rounds(std::vector<round_party>& parties, const std::vector<round_case>& cases,
                                     const round_settings& settings, const round_hooks& hooks) {
  rounds_run run(parties, cases, settings, hooks);
  return run.run();
}

}  // namespace kjudge::timing
