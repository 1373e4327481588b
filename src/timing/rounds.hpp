// The timed rounds (contract §4): every party -- the candidate and each baseline -- timed in
// interleaved rounds on the same fresh inputs, the candidate's timed calls rechecked at indices
// it cannot know, samples disturbed by the rest of the machine set aside for every party at once,
// and a stopping rule that ends the rounds when the paired ratios are precise enough or the budget
// is spent. The rounds only time and count: what a recheck finds is the judge's (a hook), and the
// statistics of the figures are src/stats/'s.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "guards/verdict.hpp"
#include "pool/worker_client.hpp"
#include "protocol/messages.hpp"

namespace kjudge::timing {

// When the rounds stop, and when a party's samples of one case in one round are enough.
struct stopping_rule {
  int min_rounds = 10;
  int max_rounds = 40;
  double budget_s = 6.0;           // wall time of the rounds, restarts of worker sets excluded
  double target_halfwidth = 0.01;  // relative half-width of a 95% CI
  int min_samples_per_round = 5;
  int max_samples_per_round = 200;

  // Whether another round is timed after `rounds`, with `elapsed_s` of the budget spent. Once the
  // minimum is done, the rounds stop when the budget is spent or `precise()` says every paired CI
  // is within the target; never more than max_rounds.
  [[nodiscard]] bool another_round(int rounds, double elapsed_s, const std::function<bool()>& precise) const;
  // A party's samples of a case in a round: at least the minimum, and a median whose CI is within
  // the target unless the case's share of the budget is spent.
  [[nodiscard]] bool enough_samples(const std::vector<double>& xs, bool over_budget) const;
  // Every baseline's ratio to the candidate (party 0), per case, within the target half-width:
  // the bootstrap CI of the median of the per-round ratios. per_round[case][party][round], seconds.
  [[nodiscard]] bool precise(const std::vector<std::vector<std::vector<double>>>& per_round) const;
};

// The round at which set of workers `epoch` (0-based) starts: the minimum rounds split evenly.
int epoch_start_round(int epoch, int epochs, int min_rounds);

// The sample indices of one case's round whose candidate call is rechecked: `count` draws uniform
// over the round's expected length, secret to the worker. Uniform, not early-biased: a candidate
// that behaves while a round is young and cheats once calls come back to back is rechecked in its
// cheating part as often as that part is long (tests/redteam/cpu/phase_cadence_gelu.cpp). Sorted
// descending: the next index to recheck is at the back.
std::vector<int> recheck_indices(int count, int expected_samples, std::mt19937_64& rng);

struct round_party {
  std::string name;
  bool is_candidate = false;
  timing_client* client = nullptr;  // the start_epoch hook points it at the party's new worker
};

struct round_case {
  std::string id;
  call_spec call;  // its seed is replaced per sample
};

// A recheck the rounds ask of the judge: the candidate's call `sample` of `round` on case `case_index`,
// its outputs kept in its worker.
struct recheck_request {
  std::size_t party = 0;
  std::size_t case_index = 0;
  call_spec call;  // with the sample's seed
  int sample = 0;
  int round = 0;
};

struct round_hooks {
  // Before the first round of set of workers `epoch` >= 1: every party's worker replaced and
  // warmed up (its time is not counted against the budget). A verdict ends the rounds.
  std::function<std::optional<verdict>(int epoch)> start_epoch;
  // The candidate's call is to be rechecked, its worker waiting: the judge asks it to keep its
  // outputs and judges them. A verdict ends the rounds.
  std::function<std::optional<verdict>(const recheck_request&)> recheck;
  std::function<void(int rounds_done, const std::string& note)> progress;
  // Around each other party's sample request: the candidate's own work meanwhile
  // (timing/background.hpp). wall_s: the request's wall time.
  std::function<void()> before_other;
  std::function<void(double wall_s)> after_other;
  // The evaluation's processes for machine_window: the controller first, then every worker.
  std::function<std::vector<pid_t>()> processes;
};

struct round_settings {
  stopping_rule stop;
  int rechecks_per_round = 2;  // per case and round
  int epochs = 1;              // sets of workers
  std::string mode = "cold";
  double call_timeout_s = 30;
  // cpu: a sample index during which processes outside the evaluation took at least
  // disturbance_share of the wall time is set aside for every party (cuda sets samples aside by
  // SM clock instead).
  bool set_aside_by_load = true;
  std::uint64_t secret = 0;  // the run's secret: sample seeds and the recheck draws
};

// A sample index is set aside when foreign CPU time reaches this share of its wall time.
inline constexpr double disturbance_share = 0.2;

struct round_figures {
  int rounds = 0;
  std::vector<int> epoch_of_round;
  // [case][party]: each round's median, every kept sample (seconds), every kept sample's SM clock
  // (MHz, cuda).
  std::vector<std::vector<std::vector<double>>> per_round, all_samples, all_mhz;
  std::vector<double> wall_overhead;  // controller wall minus the worker's figure, per sample
  // cpu, per party: the controller's go-to-end time minus the worker's figure, per sample (the
  // worker's start latency; a figure shrunk inside the worker shows here as the shrink).
  std::map<std::string, std::vector<double>> start_latency;
  // cpu, per sample index not set aside by load: the candidate's start latency minus the largest
  // baseline's at the same index, seconds.
  std::vector<double> start_latency_excess;
  long disturbed_samples = 0;      // set aside by load (cpu)
  std::size_t used_disturbed = 0;  // of those, used because too few others came within the budget
  long throttled_samples = 0;      // cuda: under 0.9 x the round's median SM clock, discarded
  // cuda: samples whose stream hold timed out (the call synchronised inside kj_run), per party.
  std::map<std::string, long> unblocked_samples;
  nlohmann::json device_state_after;  // cuda: the device's state after the last round
  int rechecks = 0;
  double recheck_s = 0;  // wall time of the rechecks
  double sample_s = 0;   // wall time of the sample requests
  double restart_s = 0;  // wall time of the worker sets' restarts
  double seconds = 0;    // wall time of the rounds, restarts included
};

// Times the rounds. parties[0] is the candidate. A verdict when a party's request failed (the
// candidate's failure; a baseline's throws usage_error), a call returned non-zero, a worker
// reported more time than passed (timer_tamper), or a hook returned one.
or_verdict<round_figures> run_rounds(std::vector<round_party>& parties, const std::vector<round_case>& cases,
                                     const round_settings& settings, const round_hooks& hooks);

}  // namespace kjudge::timing
