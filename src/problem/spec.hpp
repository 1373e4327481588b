// The problem spec (DESIGN.md §2.2): problems/<name>/problem.toml parsed into plain data.
// The format is documented in docs/problem-spec.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "core/tensor.hpp"
#include "inputs/distributions.hpp"

namespace kjudge {

// How an output's elements share rounding errors (tensor_spec::envelope_group).
enum class error_group { rows, element_wise };

// Symbolic shapes: each dimension is a symbol ("M") or an integer literal ("3"), or a product
// expression of them (see problem/expr.hpp).
struct tensor_spec {
  std::string name;
  std::string dtype = "T";  // "T": the problem's dtype variant under evaluation; else concrete
  std::vector<std::string> shape;
  // Fixed distribution for this input regardless of the case's distribution (e.g. "uniform").
  std::optional<std::string> distribution;
  // Integer and bool inputs: the values drawn, inclusive (inputs/distributions.hpp's int_range;
  // default_int_range of the dtype when absent).
  std::optional<int_range> range;
  // Square-matrix inputs: upper or lower triangular, or symmetric, over the last two dimensions.
  matrix_structure structure = matrix_structure::none;
  // Floating inputs: the only values drawn (inputs/distributions.hpp; empty: the distribution's).
  std::vector<double> values;
  // Outputs: which elements share the rounding errors the oracle's envelope allows for
  // (oracle.hpp error_envelope). element_wise: each element depends on its own inputs alone
  // (GELU, a residual add), so each is bounded by its own error; rows: the elements of a
  // last-dimension row share intermediates (a mean, a max, a sum), so each is bounded by the
  // worst error of its row, the default.
  error_group envelope_group = error_group::rows;
  long line = 0;  // line in problem.toml, for messages
};

struct scalar_spec {
  std::string name;
  double value = 0.0;
};

struct tolerance {
  double rtol = 1e-5;
  double atol = 1e-6;
};

using symbol_values = std::map<std::string, std::int64_t>;

// One concrete case: symbol values and an input distribution.
struct case_spec {
  std::string name;  // optional label; the planner fills "public-0" etc. if empty
  symbol_values symbols;
  std::string distribution = "normal";
  long line = 0;  // line in problem.toml, for messages
};

struct symbol_range {
  std::string symbol;
  std::int64_t min = 1;
  std::int64_t max = 1;
};

// Hidden-case generator for one device.
struct hidden_spec {
  int count = 12;
  std::vector<symbol_range> ranges;
  std::vector<std::string> distributions;
  std::int64_t max_elements = 1 << 22;   // bound on the largest tensor, elements
  std::vector<std::string> constraints;  // boolean expressions over symbols, e.g. "N >= 2"
  long line = 0;                         // line of [hidden.<device>] in problem.toml
};

struct baseline_spec {
  std::string name;
  std::filesystem::path source;  // absolute
  std::string device = "cpu";
};

struct problem_spec {
  std::string name;
  std::string description;
  std::filesystem::path dir;          // absolute directory of problem.toml
  std::filesystem::path file;         // absolute path of problem.toml
  std::vector<std::string> dtypes;    // variants, e.g. {"f32", "bf16"}; first is the default
  std::string check = "elementwise";  // "elementwise" | "qr"
  bool tf32_allowed = false;          // TF32 permitted (tolerance then from tolerance.tf32)
  // Kernels the candidate did not compile itself (cuBLAS, cuDNN, any prebuilt binary) may run in
  // its calls; false: such a kernel in a checked call's trace is rule library_call (cuda).
  bool library_kernels = true;
  double conditioning_k = 8.0;  // DESIGN.md §3 k
  // Non-finite reference outputs are part of the problem; otherwise the judge redraws a hidden
  // case whose reference is non-finite (DESIGN.md §3).
  bool nonfinite_outputs = false;

  std::vector<std::string> symbols;
  std::vector<tensor_spec> inputs;
  std::vector<tensor_spec> outputs;
  std::vector<scalar_spec> scalars;

  std::map<std::string, tolerance> tolerances;  // per dtype name, and "tf32"

  std::string cost_bytes;  // formula over the symbols and `elem` (bytes per element of T)
  std::string cost_flops;  // formula over the symbols

  std::optional<std::filesystem::path> reference_cpp;  // absolute
  std::optional<std::filesystem::path> reference_cu;
  std::optional<std::filesystem::path> reference_py;
  std::vector<baseline_spec> baselines;

  std::vector<case_spec> public_cases;                        // shown to candidate authors
  std::map<std::string, std::vector<case_spec>> bench_cases;  // device -> timed cases
  std::map<std::string, hidden_spec> hidden;                  // device -> hidden-case generator
};

// Parses and validates problems/<name>/problem.toml. Throws usage_error with "file:line: what was
// expected" on any malformed content (unknown keys included).
problem_spec parse_problem_file(const std::filesystem::path& toml_file);

// Concrete tensor descriptors for a case: shapes evaluated, "T" replaced by `variant`.
// Throws usage_error if a shape expression is invalid or non-positive.
std::vector<tensor_desc> resolve_inputs(const problem_spec& p, const symbol_values& s, dtype variant);
std::vector<tensor_desc> resolve_outputs(const problem_spec& p, const symbol_values& s, dtype variant);

// Cost model evaluated for a case: minimum bytes moved and floating-point operations.
struct cost_estimate {
  double bytes = 0.0;
  double flops = 0.0;
};
cost_estimate evaluate_cost(const problem_spec& p, const symbol_values& s, dtype variant);

// Built-in tolerance of a dtype name or "tf32" (DESIGN.md §3): f32 rtol 1e-5 atol 1e-6, bf16/f16
// rtol 1e-2 atol 1e-3, tf32 rtol 5e-3 atol 1e-4, f64 rtol 1e-10 atol 1e-12, integers exact.
tolerance default_tolerance(std::string_view dtype_or_tf32);

// Tolerance for a dtype variant (tf32: the "tf32" entry when allowed and requested).
tolerance tolerance_for(const problem_spec& p, dtype variant, bool tf32 = false);

}  // namespace kjudge
