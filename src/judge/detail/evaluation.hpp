// One evaluation (judge/evaluate.hpp) as a sequence of phases over an explicit object, as
// nvbench's measure_cold (check -> initialize -> warm-up -> trials -> summaries):
//
//   check options -> build parties -> launch workers -> correctness -> timing -> summaries
//   -> sanitizer
//
// The constructor is the check: every usage error is thrown there, before anything runs. Each
// later phase returns a verdict when the candidate is rejected (std::nullopt otherwise) and run()
// alone turns that into the end of the evaluation (finish). usage_error and internal_error stay
// exceptions: the problem's or the judge's faults, never the candidate's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "builder/builder.hpp"
#include "judge/detail/context.hpp"
#include "judge/detail/options.hpp"
#include "judge/detail/reference.hpp"
#include "judge/evaluate.hpp"
#include "judge/torch_compile_cache.hpp"
#include "stats/stats.hpp"
#include "timing/background.hpp"
#include "timing/ceilings.hpp"
#include "timing/rounds.hpp"

namespace kjudge::detail {

// A phase's outcome: the verdict that ends the evaluation, or nothing to go on.
using phase_outcome = std::optional<verdict>;

// Host memory the evaluation will touch at its largest call, and whether the candidate's timing
// worker (fresh_timing_worker) fits beside the worker that runs its checks; where it does not, it
// is started once that one has stopped (the sum of the two is then never held).
struct host_memory_plan {
  std::uint64_t available = 0;      // bytes; 0: unknown (no /proc/meminfo)
  std::uint64_t needed = 0;         // at the largest case, the timing worker started late
  std::uint64_t needed_beside = 0;  // the same with the timing worker beside the checks' worker
  bool beside = true;
};

// A party of the timed rounds: the candidate (first) or a baseline.
struct timed_party {
  std::string name;
  std::filesystem::path source;
  std::string sha256;
  worker_process* worker = nullptr;
  bool is_candidate = false;
  bool is_python = false;  // a kjudge-worker-py party (torch): its warm-up calls are not traced (the census is)
};

// A worker launched at the start, awaited where first needed.
// A worker's start as its own process, awaited (start() in the two steps of launch()).
std::variant<worker_process, worker_failure> awaited(std::variant<worker_process, worker_failure>&& started);

struct launched_party {
  std::string kind;   // the torch party's kind, or "reference" for the reference as a baseline
  std::string label;  // its worker's label (scratch directory)
  worker_options options;
  std::variant<worker_process, worker_failure> started;
};

// Each baseline's own A/A reference: before the rounds, every baseline is timed on every timed case
// with the candidate's process group stopped (evaluation_timing.cpp).
struct baseline_calibration {
  std::size_t c = 0, q = 0;
  std::vector<double> samples;  // seconds
};

// Arena sizes per role, bytes, for the largest call of the plan each role makes.
struct arena_sizes {
  std::size_t ref = 1 << 16, ref_pin = 0, cand = 1 << 16, timed = 1 << 16;
};

// Per timed case, each round's ratio of the case's strongest baseline (and of each baseline) to
// the candidate: the headline is one statistic of these (stats::epoch_geomean_of_medians).
struct case_ratios {
  std::vector<std::vector<double>> strongest;
  std::map<std::string, std::vector<std::vector<double>>> per_baseline;
};

class evaluation {
 public:
  // The check phase: throws usage_error for bad usage or bad input.
  explicit evaluation(const eval_options& o);
  evaluation(const evaluation&) = delete;
  evaluation& operator=(const evaluation&) = delete;
  evaluation(evaluation&&) = delete;
  evaluation& operator=(evaluation&&) = delete;
  ~evaluation() = default;

  // The remaining phases in order; the kjudge.result/1 document.
  nlohmann::json run();

 private:
  // evaluation.cpp: the sequence, progress, the result's head, the end.
  void progress(const std::string& phase, int done, int total, const std::string& note);
  void plan();
  nlohmann::json finish(const verdict& given);
  verdict sandbox_verdict(const verdict& given);
  verdict untimed_verdict() const;
  verdict timed_verdict() const;
  [[nodiscard]] phase_outcome sanitizer();
  [[nodiscard]] worker_options sanitizer_worker_options(const std::filesystem::path& dir,
                                                        const std::filesystem::path& report) const;

  // evaluation_parties.cpp: builds, arenas, host memory, workers.
  phase_outcome build_parties();
  void size_arenas();
  void plan_host_memory();
  worker_options worker_options_for(const std::filesystem::path& lib, worker_role role, const std::string& label,
                                    const nlohmann::json& party, bool timing = false) const;
  or_verdict<worker_process*> adopt_worker(std::variant<worker_process, worker_failure>&& r, worker_role role,
                                           const std::string& label);
  or_verdict<worker_process*> start_worker(const std::filesystem::path& lib, worker_role role, const std::string& label,
                                           const nlohmann::json& party = nullptr);
  or_verdict<worker_process*> await_launched(launched_party& lp);
  std::variant<worker_process, worker_failure> launch_timing_worker() const;
  void launch_baselines();
  void seed_compile_cache(const worker_options& first, const worker_options& wo);
  bool discard_seeded_cache(const std::filesystem::path& first, const std::filesystem::path& scratch,
                            const std::string& why);
  std::variant<worker_process, worker_failure> await_baseline(std::variant<worker_process, worker_failure>&& started,
                                                              const worker_options& wo,
                                                              const std::filesystem::path& first);
  void store_compile_cache(std::size_t q, nlohmann::json& warm_up);
  std::variant<worker_process, worker_failure> launch_reference() const;
  phase_outcome launch_workers();

  // evaluation_correctness.cpp: public, hidden and shape-scale cases; determinism; the probe.
  phase_outcome correctness();
  or_verdict<std::pair<worker_process*, worker_process*>> start_variant(const shape_variant& sv);
  phase_outcome check_case(const planned_case& pc, worker_process& ref, worker_process& cand);
  phase_outcome check_repeat(worker_process& cand, const call_spec& call, const std::vector<arena_slot>& layout,
                             reference_data& rd, const planned_case& pc, const nlohmann::json& base,
                             nlohmann::json& entry);

  // evaluation_timing.cpp: the timed parties, warm-up, calibration, rounds and their checks.
  phase_outcome timing();
  phase_outcome gather_parties();
  phase_outcome add_baselines();
  phase_outcome warm_python(int epoch);
  nlohmann::json warm_python_baseline(std::size_t q, int epoch);
  phase_outcome warm_up_parties();
  phase_outcome warm_up(std::size_t c, std::size_t q);
  void take_census(int set);
  phase_outcome start_epoch(int e);
  or_verdict<std::vector<baseline_calibration>> calibrate_baselines();
  timing::round_settings round_settings() const;
  timing::round_hooks round_hooks();
  phase_outcome recheck(const timing::recheck_request& rq);
  phase_outcome check_background();
  phase_outcome check_clock();
  phase_outcome check_start_latency();
  void python_stats_after_timing();

  // evaluation_summary.cpp: the result document's timing and speedup.
  phase_outcome summaries();
  void load_ceiling();
  [[nodiscard]] nlohmann::json ci_json(const stats::interval& ci) const;
  [[nodiscard]] stats::ratio_summary paired_ci(const std::vector<double>& num, const std::vector<double>& den) const;
  [[nodiscard]] std::vector<double> ratios_of(std::size_t c, std::size_t q) const;
  or_verdict<nlohmann::json> summarize_case(std::size_t c, case_ratios& ratios);
  [[nodiscard]] std::optional<double> compute_ceiling_gflops() const;
  phase_outcome achieved(const planned_case& bench, const cost_estimate& cost, double med, nlohmann::json& cj);
  void summarize_memory();
  void summarize_timing(const nlohmann::json& tcases);
  void summarize_epochs();
  void summarize_speedup(const nlohmann::json& tcases, const nlohmann::json& per_baseline);

  // Wall time per phase, seconds (result "phases_s"): where a time to verdict goes. Each progress
  // report closes the interval since the previous one and charges it to that one's phase.
  clock_type::time_point m_start = clock_type::now();
  std::map<std::string, double> m_phase_seconds;
  std::string m_phase = "setup";
  clock_type::time_point m_phase_mark = clock_type::now();

  // The options, checked.
  const eval_options& m_o;
  checked_options m_c;
  const problem_spec& m_p;
  evaluation_context m_cx;

  nlohmann::json m_result;
  case_plan m_plan;
  std::uint64_t m_secret = 0;
  shape_scale_plan m_shape_plan;
  std::filesystem::path m_scratch;
  std::vector<std::unique_ptr<worker_process>> m_workers;  // kept alive until the end

  // Build.
  bool m_device_reference = false;         // reference.cu on the device
  bool m_python_device_reference = false;  // a Python reference in torch on the device
  std::filesystem::path m_ref_source;
  build_result m_ref_build, m_cand_build;
  std::map<std::string, std::shared_future<build_result>> m_baseline_builds;
  arena_sizes m_arena;
  host_memory_plan m_memory;

  // Workers.
  std::vector<std::string> m_torch_kinds;
  std::vector<launched_party> m_launched;
  nlohmann::json m_cand_party;
  std::optional<std::variant<worker_process, worker_failure>> m_cand_timing_started;
  worker_process* m_ref = nullptr;
  worker_process* m_cand = nullptr;
  // The torch baselines' compile caches, by the scratch directory of the party's first worker,
  // and the files each of its workers started with (a cold compile: 0).
  std::map<std::filesystem::path, torch_compile_cache> m_compile_caches;
  std::map<std::filesystem::path, std::vector<std::size_t>> m_compile_seeded;
  // Why a seeded worker's stored cache was dropped (it failed to start or to warm up), per party.
  std::map<std::filesystem::path, std::vector<std::string>> m_compile_discarded;

  // Correctness.
  int m_done = 0;  // cases checked
  int m_repeats_left_hidden = 2;
  bool m_stale_probe_done = false;

  // Timing.
  std::vector<timed_party> m_parties;
  std::vector<std::size_t> m_python_parties;
  nlohmann::json m_torch_info;
  std::vector<call_spec> m_warm_calls;
  // A Python baseline's compile counters after its warm-up in the current epoch, and the
  // recompiles of the epochs already ended (graphs compiled during their timed rounds).
  std::map<std::size_t, nlohmann::json> m_warm_stats;
  std::map<std::size_t, long> m_earlier_recompiles;
  std::vector<const planned_case*> m_bench;
  std::map<std::string, double> m_peak_memory;  // cuda: party -> device bytes allocated during a call
  nlohmann::json m_census_sets = nlohmann::json::array();
  nlohmann::json m_census_same_code = nlohmann::json::array();
  std::vector<worker_options> m_first_options;
  int m_epochs = 1;
  int m_epoch = 0;
  int m_rounds = 0;
  int m_rechecks_per_round = 0;
  std::vector<worker_client> m_clients;
  std::vector<baseline_calibration> m_calibration;
  background_meter m_background;
  clock_type::time_point m_timing_start;
  timing::round_figures m_figures;
  double m_recheck_reference_seconds = 0;  // of the rechecks: the reference's runs and their copies
  // Where a recheck's time goes, seconds summed over rechecks: keep (the candidate's worker probes
  // for deferred work and copies its inputs back; the reference runs meanwhile), reference_wait
  // (what is left of the reference's run), envelope (reading its outputs, the error envelope),
  // inputs (unchanged-input comparison), outputs (the oracle).
  std::map<std::string, double> m_recheck_phase{
      {"keep", 0.0}, {"reference_wait", 0.0}, {"envelope", 0.0}, {"inputs", 0.0}, {"outputs", 0.0}};
  // The reference worker's own account of its requests for rechecks (its reply's phases_s: input
  // draws, runs, downloads), seconds summed over rechecks.
  std::map<std::string, double> m_recheck_reference_phase;
  nlohmann::json m_background_evidence;
  nlohmann::json m_drift;
  nlohmann::json m_clock_evidence;
  nlohmann::json m_start_latency_evidence;

  // Summaries.
  std::optional<device_ceilings> m_ceil;
  bool m_with_ci = false;
  stats::epoch_summary m_head;
};

}  // namespace kjudge::detail
