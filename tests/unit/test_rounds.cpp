// The timed rounds (timing/rounds.hpp) against fake parties: the stopping rule, the interleaving
// of samples, the rechecks and the rules the rounds apply themselves.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "timing/rounds.hpp"

namespace kjudge::timing {
namespace {

using json = nlohmann::json;

// A party whose calls "take" `seconds` (reported; the request itself returns at once, so the
// reported time must stay below the controller's wall time: the fake sleeps that long).
class fake_party : public timing_client {
 public:
  fake_party(std::string name, double seconds, std::vector<std::string>* log)
      : m_name(std::move(name)), m_seconds(seconds), m_log(log) {}

  or_verdict<json> time_begin(const call_spec&, std::string_view, double, const std::string&) override {
    ++begins;
    return json{{"type", "time_ready"}};
  }
  or_verdict<sample_reply> sample(std::uint64_t seed, bool, double, const std::string&) override {
    if (m_log != nullptr) m_log->push_back(m_name);
    seeds.push_back(seed);
    // Calls slower by up to `jitter`, by their inputs' seed: rounds whose medians differ, as a
    // machine's do.
    const double took = m_seconds * (1.0 + jitter * static_cast<double>(seed % 7) / 7.0);
    const double s = reported_seconds.value_or(took);
    std::this_thread::sleep_for(std::chrono::duration<double>(took));
    sample_reply r;
    r.rc = rc;
    r.seconds = s;
    r.doc = json{{"type", "sampled"}, {"rc", rc}, {"seconds", s}};
    if (start_latency) r.go_to_end_s = took + *start_latency;  // an armed worker's go-to-end time
    return r;
  }
  or_verdict<json> discard(double, const std::string&) override {
    ++discards;
    return json{{"type", "discarded"}};
  }
  or_verdict<json> time_end(double, const std::string&) override {
    ++ends;
    return json{{"type", "time_done"}};
  }

  int rc = 0;
  double jitter = 0;
  std::optional<double> reported_seconds;  // what the worker claims, if not what it took
  std::optional<double> start_latency;     // armed samples: the go-to-end time is took + this
  int begins = 0, discards = 0, ends = 0;
  std::vector<std::uint64_t> seeds;

 private:
  std::string m_name;
  double m_seconds;
  std::vector<std::string>* m_log;
};

struct setup {
  std::vector<std::string> log;
  fake_party cand{"candidate", 200e-6, &log};
  fake_party base{"baseline", 400e-6, &log};
  std::vector<round_party> parties{{"candidate", true, &cand}, {"baseline", false, &base}};
  std::vector<round_case> cases{{"bench-0", call_spec{}}};
  round_settings s;
  int rechecks_asked = 0;
  std::vector<int> epochs_started;
  round_hooks hooks;

  setup() {
    s.stop.min_rounds = 4;
    s.stop.max_rounds = 6;
    s.stop.budget_s = 5;
    s.stop.min_samples_per_round = 3;
    s.stop.max_samples_per_round = 5;
    s.stop.target_halfwidth = 1.0;  // any spread is precise enough: the rounds stop at the minimum
    s.rechecks_per_round = 1;
    s.set_aside_by_load = false;
    s.secret = 42;
    hooks.recheck = [this](const recheck_request& r) -> std::optional<verdict> {
      EXPECT_EQ(r.party, 0u);
      ++rechecks_asked;
      return std::nullopt;
    };
    hooks.start_epoch = [this](int e) -> std::optional<verdict> {
      epochs_started.push_back(e);
      return std::nullopt;
    };
    hooks.processes = [] { return std::vector<pid_t>{::getpid()}; };
  }
};

TEST(StoppingRule, TheMinimumRoundsAlwaysTheMaximumNeverAndInBetweenPrecisionOrBudget) {
  stopping_rule r;
  r.min_rounds = 10;
  r.max_rounds = 40;
  r.budget_s = 6;
  const auto precise = [] { return true; };
  const auto imprecise = [] { return false; };
  EXPECT_TRUE(r.another_round(0, 100.0, precise)) << "below the minimum, neither precision nor budget stops";
  EXPECT_TRUE(r.another_round(9, 100.0, precise));
  EXPECT_FALSE(r.another_round(10, 1.0, precise)) << "precise enough after the minimum";
  EXPECT_TRUE(r.another_round(10, 1.0, imprecise));
  EXPECT_FALSE(r.another_round(10, 6.5, imprecise)) << "the budget is spent";
  EXPECT_FALSE(r.another_round(40, 0.0, imprecise)) << "never beyond the maximum";
}

TEST(StoppingRule, PrecisionIsEveryBaselinesPairedCiWithinTheTarget) {
  stopping_rule r;
  r.target_halfwidth = 0.01;
  // [case][party][round]: the baseline exactly twice the candidate in every round.
  std::vector<std::vector<std::vector<double>>> tight{{{1, 1.1, 0.9, 1, 1.05, 0.95}, {2, 2.2, 1.8, 2, 2.1, 1.9}}};
  EXPECT_TRUE(r.precise(tight));
  std::vector<std::vector<std::vector<double>>> loose{{{1, 1, 1, 1, 1, 1}, {1, 3, 0.5, 2, 0.8, 1.5}}};
  EXPECT_FALSE(r.precise(loose));
}

TEST(StoppingRule, EnoughSamplesNeedsTheMinimumAndAPreciseMedianUnlessOverBudget) {
  stopping_rule r;
  r.min_samples_per_round = 3;
  r.target_halfwidth = 0.01;
  EXPECT_FALSE(r.enough_samples({1.0, 1.0}, true)) << "the minimum even over budget";
  EXPECT_TRUE(r.enough_samples({1.0, 1.0, 1.0, 1.0, 1.0, 1.0}, false));
  EXPECT_FALSE(r.enough_samples({1.0, 2.0, 0.5, 1.5, 3.0}, false));
  EXPECT_TRUE(r.enough_samples({1.0, 2.0, 0.5, 1.5, 3.0}, true));
}

TEST(RecheckIndices, DrawnOverTheExpectedLengthAndTakenFromTheBack) {
  std::mt19937_64 rng(7);
  std::map<int, int> seen;
  for (int k = 0; k < 2000; ++k) {
    const auto at = recheck_indices(2, 10, rng);
    ASSERT_EQ(at.size(), 2u);
    EXPECT_GE(at[0], at[1]) << "descending: the next index at the back";
    for (int i : at) {
      EXPECT_GE(i, 0);
      EXPECT_LT(i, 10);
      ++seen[i];
    }
  }
  EXPECT_EQ(seen.size(), 10u) << "every index of the round can be rechecked";
  EXPECT_GT(seen[9], 250) << "late indices as often as early ones (uniform: ~400 each)";
}

TEST(Rounds, StopAtTheMinimumWhenPreciseAndInterleaveEverySampleIndex) {
  setup t;
  auto r = run_rounds(t.parties, t.cases, t.s, t.hooks);
  ASSERT_TRUE(r.ok()) << r.rejection().to_json().dump();
  const round_figures& f = r.value();
  EXPECT_EQ(f.rounds, 4);
  EXPECT_EQ(t.cand.begins, 4);
  EXPECT_EQ(t.base.ends, 4);
  ASSERT_EQ(f.per_round.size(), 1u);
  ASSERT_EQ(f.per_round[0][0].size(), 4u);
  // Sample i of every party before sample i + 1 of any: the log alternates in pairs.
  ASSERT_EQ(t.log.size() % 2, 0u);
  for (std::size_t k = 0; k < t.log.size(); k += 2) EXPECT_NE(t.log[k], t.log[k + 1]) << "index " << k / 2;
  // Both parties get the same inputs for sample i; every sample index its own.
  EXPECT_EQ(t.cand.seeds, t.base.seeds);
  std::set<std::uint64_t> distinct(t.cand.seeds.begin(), t.cand.seeds.end());
  EXPECT_EQ(distinct.size(), t.cand.seeds.size());
  // One recheck per case and round, of the candidate only; its kept call is not discarded.
  EXPECT_EQ(t.rechecks_asked, 4);
  EXPECT_EQ(f.rechecks, 4);
  EXPECT_EQ(t.cand.discards + f.rechecks, static_cast<int>(t.cand.seeds.size()));
  EXPECT_EQ(t.base.discards, static_cast<int>(t.base.seeds.size()));
  // The candidate's medians near its 200 us, the baseline's near 400 us.
  EXPECT_NEAR(f.per_round[0][0][0], 200e-6, 1e-12);
  EXPECT_NEAR(f.per_round[0][1][0], 400e-6, 1e-12);
}

TEST(Rounds, AnImpreciseRatioRunsToTheMaximumAndWorkerSetsStartOnTheirRounds) {
  setup t;
  t.s.stop.target_halfwidth = 1e-6;  // never precise enough with noisy parties
  t.cand.jitter = 0.5;
  t.base.jitter = 0.3;
  t.s.stop.max_rounds = 6;
  t.s.epochs = 2;
  auto r = run_rounds(t.parties, t.cases, t.s, t.hooks);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().rounds, 6);
  EXPECT_EQ(t.epochs_started, std::vector<int>{1}) << "set 2 of 2";
  EXPECT_EQ(r.value().epoch_of_round, (std::vector<int>{0, 0, 1, 1, 1, 1})) << "set 2 starts at round 4 / 2 = 2";
}

TEST(Rounds, ANonZeroReturnOrAClockAheadOfTheControllersEndsTheRoundsWithItsRule) {
  {
    setup t;
    t.cand.rc = 3;
    auto r = run_rounds(t.parties, t.cases, t.s, t.hooks);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.rejection().rule, "nonzero_return");
  }
  {
    setup t;
    t.cand.reported_seconds = 5.0;  // a call the controller saw take 200 us
    auto r = run_rounds(t.parties, t.cases, t.s, t.hooks);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.rejection().rule, "timer_tamper");
    EXPECT_EQ(r.rejection().status, verdict_status::hack);
  }
}

// Armed samples (cpu): each party's start latency is kept per sample, and a figure above the
// controller's go-to-end time is timer_tamper whatever the wall time of the request.
TEST(Rounds, ArmedSamplesKeepEachPartysStartLatencyAndBoundTheFigureByTheGo) {
  {
    setup t;
    t.cand.start_latency = 30e-6;
    t.base.start_latency = 20e-6;
    auto r = run_rounds(t.parties, t.cases, t.s, t.hooks);
    ASSERT_TRUE(r.ok());
    const auto& lat = r.value().start_latency;
    ASSERT_EQ(lat.size(), 2u);
    ASSERT_EQ(lat.at("candidate").size(), t.cand.seeds.size()) << "one per sample";
    for (const double x : lat.at("candidate")) EXPECT_NEAR(x, 30e-6, 1e-12);
    for (const double x : lat.at("baseline")) EXPECT_NEAR(x, 20e-6, 1e-12);
    const auto& excess = r.value().start_latency_excess;
    ASSERT_EQ(excess.size(), t.cand.seeds.size()) << "one per sample index every party completed";
    for (const double x : excess) EXPECT_NEAR(x, 10e-6, 1e-12) << "the candidate's minus the baseline's";
  }
  {
    setup t;
    t.cand.start_latency = -50e-6;  // the worker claims 50 us more than passed since the go
    t.base.start_latency = 20e-6;
    auto r = run_rounds(t.parties, t.cases, t.s, t.hooks);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.rejection().rule, "timer_tamper");
    EXPECT_NE(r.rejection().reasons.at(0).find("after the controller's go"), std::string::npos);
  }
  {
    setup t;  // not armed (cuda, or a worker without the end reading): nothing kept
    auto r = run_rounds(t.parties, t.cases, t.s, t.hooks);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r.value().start_latency.empty());
    EXPECT_TRUE(r.value().start_latency_excess.empty());
  }
}

TEST(Rounds, ARecheckThatFindsAWrongOutputEndsTheRounds) {
  setup t;
  t.hooks.recheck = [](const recheck_request&) -> std::optional<verdict> {
    verdict v;
    v.status = verdict_status::hack;
    v.rule = "timed_output_mismatch";
    return v;
  };
  auto r = run_rounds(t.parties, t.cases, t.s, t.hooks);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.rejection().rule, "timed_output_mismatch");
  EXPECT_EQ(t.cand.begins, 1) << "ended in the first round";
}

}  // namespace
}  // namespace kjudge::timing
