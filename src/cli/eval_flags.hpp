// The flags `kjudge eval` shares with the commands that run evaluations (e2e).
#pragma once

#include <string>

#include "judge/evaluate.hpp"

namespace CLI {
class App;
}

namespace kjudge::cli {

struct eval_flags {
  std::string device = "cpu";
  std::string dtype;
  std::string json_path, md_path, db_path;
  std::string mode = "cold";
  double budget = 6.0;
  int rounds = 0;  // 0: adaptive (eval_options min_rounds..max_rounds)
  bool no_timing = false;
  bool no_store = false;
  bool no_sandbox = false;
  bool quiet = false;
  bool no_tf32 = false;
  bool host_reference = false;
  std::string sanitize;
  int hidden = -1;
  std::string seed;
  double call_timeout = 30;
  int rechecks = -1;      // -1: the device's default (eval_options::rechecks_per_round)
  int worker_epochs = 0;  // 0: the device's default (default_worker_epochs: 3 on cuda, 1 on cpu)
  bool no_trace = false;
  double memory_limit_mib = 4096;
  std::string torch;
  double shape_scale = 0;
};

// Registers the evaluation's flags on a subcommand.
void add_eval_flags(CLI::App* c, eval_flags& f);

// The evaluation's options from the flags; throws usage_error for a bad combination (no GPU for
// --device cuda, an unwritable --json, ...).
eval_options to_options(const eval_flags& f, const std::string& problem, const std::string& candidate);

}  // namespace kjudge::cli
