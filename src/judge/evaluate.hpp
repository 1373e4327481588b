// The evaluation pipeline: build -> isolated workers -> public cases -> hidden cases ->
// determinism -> interleaved A/B timing with rechecks -> verdict and result document.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "judge/result.hpp"

namespace kjudge {

// Progress events for long work: phase ("build", "public", "hidden", "timing"), done of total.
using progress_fn = std::function<void(const std::string& phase, int done, int total, const std::string& note)>;

struct eval_options {
  std::string problem;  // suite name or path to a problem directory
  std::filesystem::path candidate;
  std::string device = "cpu";
  std::optional<std::string> dtype;    // default: the problem's first variant
  std::string mode = "cold";           // cold | warm
  bool timing = true;                  // false: correctness only
  double timing_budget_seconds = 6.0;  // cap of the timing phase
  int min_rounds = 10;
  int max_rounds = 40;
  double target_halfwidth = 0.01;  // relative 95% CI half-width to stop at
  int min_samples_per_round = 5;
  int max_samples_per_round = 200;
  // Timed candidate calls rechecked per case and round, at uniformly drawn positions; -1: the
  // device's default, 2 on cpu (a recheck costs a reference call of a few ms), 1 on cuda (a
  // reference run and ~1.5 GB through the arena on an 8192 x 8192 case).
  int rechecks_per_round = -1;
  // Successive sets of fresh workers the rounds are split between (every party's process replaced
  // at once); with 2 or more the CI also covers what a process fixes for its lifetime (the kernel
  // a library picked, where the buffers landed). 0: the device's default (default_worker_epochs).
  int worker_epochs = 0;
  // cuda: the kernel trace of checked calls (CUPTI: streams, kernels after the stop event,
  // library kernels, peak memory). Off only to measure what it costs (--no-trace).
  bool trace = true;
  int hidden_count = -1;                     // -1: the spec's count
  std::optional<std::uint64_t> secret_seed;  // fixed only for reproducing a run
  bool sandbox = true;
  double call_timeout_seconds = 30;  // one call (watchdog), seconds
  std::size_t memory_limit_bytes = 4ull << 30;
  // The candidate's workers write into a private tmpfs of this size (bytes; 0: the real scratch
  // directory, unbounded in total): a candidate cannot fill the disk its baselines compile on.
  std::size_t scratch_quota_bytes = 1ull << 30;
  bool tf32 = true;  // TF32 permitted where the problem allows it
  // cuda, Python references (imported problems): run the reference (float64 and same-dtype) in
  // torch on the device (default), or on the host as on cpu (slow for GPU-sized problems).
  bool host_reference = false;
  // cuda: also run the candidate's first public and hidden cases under compute-sanitizer with this
  // tool (memcheck, racecheck, initcheck, synccheck); empty: not run (docs/threat-model.md).
  std::string sanitize;
  // PyTorch baselines (docs/python.md) for problems with a Python form: kinds from
  // torch_baseline_kinds(); empty: default_torch_baselines(device); {"none"}: none.
  std::vector<std::string> torch_baselines;
  // The torch baselines start from the compile caches their earlier workers stored, and store
  // theirs (judge/torch_compile_cache.hpp); false: every worker compiles from nothing (to measure
  // the cold compile).
  bool torch_compile_cache = true;
  // KernelBench imports: hidden cases with the file's size constants scaled by this factor (and
  // scaled to odd sizes), where the reference runs with them; 0: off (docs/python.md).
  double shape_scale = 0;
  // In place of the problem's tolerance for the variant judged (kjudge batch --tolerance
  // kernelbench: KernelBench's atol and rtol, for figures comparable with its own); nullopt: the
  // problem's. The result document's tolerance says which was applied.
  std::optional<double> rtol_override, atol_override;
  progress_fn progress;
};

// What compute-sanitizer's report says (--sanitize): its summary line's error count and the
// first error. found_summary false: the tool did not finish (or did not run).
struct sanitizer_summary {
  bool found_summary = false;
  long errors = 0;
  std::string first_error;
  std::string excerpt;  // the tool's lines (prefix "========= "), at most 40
};
sanitizer_summary parse_sanitizer_report(const std::string& text);

// The sets of fresh workers an evaluation's rounds are split between when none is asked for
// (eval_options::worker_epochs 0): 3 on cuda, at most one per round; 1 on cpu. On the H200 one set's
// CI proved too narrow: KernelBench A/As (the same code on both sides) came out 0.9941 [0.9824,
// 0.9985], 1.0011 [1.0004, 1.0017] and so on at equal SM clocks, 9 of 50 excluding 1, and one conv
// moved by 3.9% between runs each a few 0.01% wide; with 3 sets its CI was [0.9622, 1.0065]
// (docs/notebook/2026-12-03-worker-epochs.md). Three is the fewest whose t quantile (4.30) keeps a CI usable: two
// sets give 12.7. cpu stays at one set: its spread between processes has not been measured.
int default_worker_epochs(const std::string& device, int min_rounds);

// Runs the whole pipeline and returns the kjudge.result/1 document (judge/result.hpp). Throws
// usage_error for bad usage or bad input (unknown problem, unreadable candidate, bad dtype),
// internal_error for faults of the judge. A candidate's failure is a verdict in the document,
// never an exception; "bad_input" verdicts (no kj_run) are returned as documents too.
result_document evaluate(const eval_options& o);

}  // namespace kjudge
