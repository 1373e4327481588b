// `kjudge e2e` (docs/e2e.md): what a kernel is worth inside a model. The candidate is judged on
// its suite problem first (evaluate()); then the model file (KernelBench's form) is imported as a
// problem and judged with a generated ModelNew -- the model's own class with the target (a module
// class or a function) replaced by the candidate, called through the ABI as a torch custom op --
// so the model-level correctness is the oracle's: the candidate's model against the model's own
// float64 run, with the conditioning-aware envelope, on public and hidden inputs.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "judge/evaluate.hpp"
#include "judge/result.hpp"

namespace kjudge::e2e {

struct options {
  std::filesystem::path model;  // MODEL.py: Model, get_inputs, get_init_inputs
  std::string target;           // a module class name (RMSNorm) or a dotted function (torch.softmax)
  std::filesystem::path candidate;
  std::string problem;      // the suite problem the candidate solves; empty: infer_problem(target)
  eval_options kernel;      // device, dtype, timing, seeds...; problem and candidate are set by run()
  bool model_only = false;  // skip the kernel-level judgement (the model-level verdict alone)
  // torch.compile modes (default, max-autotune-no-cudagraphs, ...) the model is also timed in,
  // without and with the candidate; empty: eager only.
  std::vector<std::string> compile_modes;
  // Imports the model file as a KernelBench problem under out_root and returns its directory
  // (the CLI's importer; throws usage_error naming what is wrong with the file).
  std::function<std::filesystem::path(const std::filesystem::path& model, const std::filesystem::path& out_root)>
      import_model;
};

// The suite problem a target names by its last component, case and '_' ignored (RMSNorm,
// torch.nn.functional.softmax, LayerNorm, GeluBiasResidual); nullopt when none matches.
std::optional<std::string> infer_problem(const std::string& target);

// Amdahl's prediction of the model-level speedup when a part `share` (0..1) of the model's time
// is made `kernel_speedup` times faster: 1 / ((1 - share) + share / kernel_speedup).
double amdahl(double share, double kernel_speedup);

struct outcome {
  result_document doc;  // the kernel-level document (the model-level one with --model-only), with `e2e`
  int exit_status = 0;  // 0 correct at both levels, 1 rejected at either, 2 the model or target is unusable
};

// The target's share of a step (docs/e2e.md#timing), profiled in a kjudge-worker-py --inspect
// process in a scratch directory: `eager` (the model's own target), `eager_with_candidate` and
// `compiled_with_candidate` {mode} (the candidate's op, the same range in both), and
// `graphs_compiled_in_steps` {mode} (0 unless the compiled model recompiled while profiled);
// or {`error`}. Uses o.model, o.target, o.candidate, o.kernel.device and o.compile_modes.
nlohmann::json measure_shares(const options& o, const std::string& problem);

// Runs the kernel-level judgement, then the model-level one. Throws usage_error for bad usage
// (unknown target, a model without the target, no Python).
outcome run(const options& o);

// The console summary of an `e2e` section.
std::string console_table(const nlohmann::json& e2e);

}  // namespace kjudge::e2e
