// The case planner: public cases, hidden cases from a secret per-run seed, and timed cases.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inputs/distributions.hpp"
#include "problem/spec.hpp"

namespace kjudge {

enum class case_kind { public_case, hidden_case, bench_case };
std::string_view case_kind_name(case_kind k);

struct planned_case {
  std::string id;  // "public-0", "hidden-3", "bench-1"
  case_kind kind = case_kind::public_case;
  symbol_values symbols;
  std::string distribution;
  std::uint64_t seed = 0;  // seed of this case's first call; later calls derive from it
  std::vector<input_plan> inputs;
  std::vector<tensor_desc> outputs;
  std::vector<double> scalars;
  std::vector<std::string> symbol_order;  // the spec's declared order, for shape_string

  [[nodiscard]] std::string shape_string() const;  // "M=64 N=256", in declared symbol order
};

struct plan_options {
  std::string device = "cpu";
  dtype variant = dtype::f32;
  std::uint64_t secret_seed = 0;  // from the OS entropy source unless fixed for a test
  int hidden_count = -1;          // -1: the spec's count
};

struct case_plan {
  std::vector<planned_case> public_cases;
  std::vector<planned_case> hidden_cases;
  std::vector<planned_case> bench_cases;
};

// Draws hidden shapes within the declared ranges, always including the extremes (each symbol's
// min, its max where the element bound allows, an odd size that is not a multiple of 8/16/32/128)
// and every declared distribution at least once when count allows; draws satisfy constraints and
// max_elements. Throws usage_error if the spec has no cases for the device.
case_plan plan_cases(const problem_spec& p, const plan_options& o);

// A case with explicit symbols/distribution (used by validate, bench, tests).
planned_case make_case(const problem_spec& p, dtype variant, const symbol_values& s, const std::string& distribution,
                       std::uint64_t seed, std::string id, case_kind kind);

// 64 random bits from the OS (getrandom); never written to any file or environment variable.
std::uint64_t fresh_secret_seed();

}  // namespace kjudge
