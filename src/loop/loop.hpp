// The search loop (issue 6, docs/proposer.md): each iteration writes a context for the proposer,
// runs it, judges every proposal with the full verdict, updates the beam, journals and stores
// everything, and commits accepted improvements to WORKDIR/git. Resumable after kill -9: the
// journal (WORKDIR/journal.jsonl) records each step before the next starts, a result document is
// written before its "judged" event, so a resumed loop loses nothing and judges nothing twice.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/paths.hpp"
#include "loop/beam.hpp"

namespace kjudge::loop {

struct loop_options {
  std::string problem;   // suite name or path
  std::string proposer;  // "autotune:T[,T...]", "dir:PATH" or a shell command
  int beam = 4;
  std::optional<int> budget_iterations;  // stop after this many iterations in total
  std::optional<double> hours;           // stop after this much active time
  std::filesystem::path workdir;         // empty: ./kjudge-loop-PROBLEM-YYYYmmdd-HHMMSS
  std::string device = "cpu";
  std::optional<std::string> dtype;
  int plateau = 3;  // iterations without improvement beyond noise before "new family"
  double near_miss_margin = 0.15;
  int retire_after = 2;
  double eval_budget_s = 2.0;  // timing budget of a full judgement, seconds
  int min_rounds = 10;         // A/B rounds of a full judgement (DESIGN.md §4: >= 10)
  int hidden = -1;             // hidden cases per judgement; -1: the problem's count
  // PyTorch baselines of every judgement (eval_options::torch_baselines): empty for the judge's
  // default set, {"none"} for none.
  std::vector<std::string> torch_baselines;
  double proposer_timeout_s = 900;
  int max_proposals = 16;         // files judged per iteration
  int autotune_max_configs = 64;  // first-rung configurations; larger spaces are sampled
  std::filesystem::path db;       // empty: default_db_path()
  bool sandbox = true;
  bool progress = true;
};

struct resume_options {
  std::optional<int> budget_iterations;
  std::optional<double> hours;
  bool progress = true;
};

struct loop_outcome {
  std::filesystem::path workdir;
  std::string run_id;
  std::string stop_reason;  // "budget", "hours", "exhausted"
  int iterations = 0;
  std::optional<scored_candidate> best;
};

// Starts a new run. Throws usage_error for bad options, an unknown problem, a malformed template,
// or a workdir that already holds a run (resume it instead) or other files.
loop_outcome run_loop(const loop_options& o);

// Continues the run in `workdir`. Throws usage_error if it holds no run.
loop_outcome resume_loop(const std::filesystem::path& workdir, const resume_options& o);

}  // namespace kjudge::loop
