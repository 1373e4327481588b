// The evaluation flags `kjudge eval` takes (--device, --budget, --rounds, ...), shared by every
// command that judges candidates (eval, validate, demo, batch): one registration, one conversion
// to eval_options.
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
  double scratch_limit_mib = 1024;
  std::string torch;
  bool no_compile_cache = false;
  double shape_scale = 0;
};

// Registers the flags above on `c` (a subcommand).
void add_eval_flags(CLI::App* c, eval_flags& f);

// --device cuda on a machine without an NVIDIA GPU or a kjudge without the CUDA backend: a
// usage_error before anything runs.
void require_gpu_for(const std::string& device);

// A path an option names that cannot be written: a usage_error before the evaluation.
void require_writable(const std::string& option, const std::string& path);

// The eval_options of the flags for one candidate of one problem; throws usage_error for a bad
// combination of flags.
eval_options to_options(const eval_flags& f, const std::string& problem, const std::string& candidate);

}  // namespace kjudge::cli
