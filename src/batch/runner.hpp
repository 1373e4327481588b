// Judging a batch's candidates (kjudge batch, docs/batch.md): each candidate without a result
// file is judged, its result stored and its result file written; a candidate's failure is its
// verdict, a judge fault on one candidate is recorded for it and the batch goes on.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "batch/discovery.hpp"
#include "batch/state.hpp"
#include "judge/evaluate.hpp"

namespace kjudge::batch {

// KernelBench's correctness check: torch.allclose with atol = rtol = 1e-2 (its eval of the
// published runs; run_and_check_correctness in src/eval.py).
inline constexpr double kernelbench_atol = 1e-2;
inline constexpr double kernelbench_rtol = 1e-2;

struct run_options {
  eval_options base;                 // from the eval flags; problem and candidate are set per candidate
  std::string tolerance = "kjudge";  // kjudge | kernelbench
  // cuda: one child process per device at a time, CUDA_VISIBLE_DEVICES set to the device and
  // child_argv + {KEY} its command line; empty: one evaluation at a time in this process.
  std::vector<std::string> devices;
  std::vector<std::string> child_argv;
  bool store = true;
  std::filesystem::path db;
  bool quiet = false;
  // Judge again the candidates whose result is not a judgement (outcome bad_input or
  // judge_fault): what the machine or the problem caused, once fixed.
  bool retry = false;
};

struct run_tally {
  int total = 0;    // candidates of the shard
  int already = 0;  // with a result before this run
  int judged = 0;   // judged by this run
  int faults = 0;   // judge faults among them
  std::map<std::string, int> by_status;
};

// Judges `c` in this process: evaluate() under the chosen tolerance (with --tolerance kernelbench
// also a correctness-only check under the problem's own, where the verdict depends on it), the
// store's row, then the result file, written last so that it means "done". Returns the file's
// document: the kjudge.result/1 document with a "batch" object (key, problem, candidate, outcome
// judged | bad_input | judge_fault, ...).
nlohmann::json judge_one(const batch_state& s, const candidate_entry& c, const run_options& o,
                         const progress_fn& progress = {});

// Judges every candidate of `shard` that has no result file yet, reporting progress on stderr.
run_tally run_batch(const batch_state& s, const std::vector<candidate_entry>& shard, const run_options& o);

}  // namespace kjudge::batch
