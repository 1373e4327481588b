// Behavioural probes of the anti-cheat rules that need the worker's cooperation (DESIGN.md §5):
// the perturbation of a call's inputs for the stale-output probe, and digests of exported bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.hpp"
#include "planner/distributions.hpp"

namespace kjudge {

// Elements changed per input tensor by a perturbed call.
inline constexpr std::size_t perturbed_elements = 8;

// The flat indices a perturbed call changes in input `input_index` of `numel` elements: a pure
// function of (perturb, input_index, numel), so the candidate's worker and the reference's worker
// change the same elements. Empty when perturb == 0.
std::vector<std::size_t> perturbed_indices(std::uint64_t perturb, int input_index, std::size_t numel);

// Changes those elements of `t` in place: v -> v + 1 + |v| (rounded to t's dtype), which differs
// from v for every finite v and keeps the value finite and of the distribution's sign class for
// positive data. The stale-output probe runs a call whose inputs equal the previous call's except
// for these few elements: a candidate that returns an earlier call's result (cached by pointer,
// by shape, or by a hash of a sample of the input) is caught, while an honest one cannot tell.
// Integer and bool inputs stay in their range (an index moved out of it would make the
// reference fail, not the candidate): v -> v + 1, and the range's high bound wraps to its low
// bound (a mask's 1 becomes 0); a range of one value is left as it is.
// A structured input (planner/distributions.hpp) stays in its structure: an index in a triangular
// matrix's zero triangle moves to its mirror, and a symmetric matrix's mirror element changes
// alike (perturbed_indices with the structure lists them, deduplicated).
void apply_perturbation(host_tensor& t, std::uint64_t perturb, int input_index,
                        const std::optional<int_range>& range = std::nullopt,
                        matrix_structure structure = matrix_structure::none, const std::vector<double>& values = {});
std::vector<std::size_t> perturbed_indices(std::uint64_t perturb, int input_index, const tensor_desc& d,
                                           matrix_structure s);
// The value one perturbed element of dtype `t` takes (before rounding to the dtype): v + 1 + |v|
// for finite floating v (a non-finite v is left as it is); the rule above for integer dtypes,
// in `range` or default_int_range(t).
// With `values` (a discrete float input): the next of the values after v's (the last wraps to
// the first), so the input stays in its domain; v itself where the list has one value.
double perturbed_value(double v, dtype t, const std::optional<int_range>& range = std::nullopt,
                       const std::vector<double>& values = {});

// The line a cpu worker writes to its log when the candidate writes to a read-only input mapping
// (worker/cpu_backend.cpp), before it dies of SIGSEGV:
//   kjudge-worker: input_write buffer='input x' region=data|guard_before|guard_after offset=N
inline constexpr std::string_view input_write_marker = "kjudge-worker: input_write buffer='";
struct input_write_report {
  std::string buffer;  // "input x"
  std::string region;  // data | guard_before | guard_after
  std::size_t offset = 0;  // bytes from the data's start (data) or from the data's edge (guards)
};
// The last such line in a worker's log tail, if any. The log is the candidate's to write too; a
// forged line can only earn its writer a hack verdict.
std::optional<input_write_report> parse_input_write(const std::string& log);

// The line a cpu worker writes when a write faults in an output or workspace mapping the judge
// released after the call (work still running after kj_run returned):
//   kjudge-worker: late_write buffer='output y' offset=N
inline constexpr std::string_view late_write_marker = "kjudge-worker: late_write buffer='";
// A write to a sealed page of the worker's code (worker/detail/seal.hpp), named by the worker's
// fault reporter: "kjudge-worker: sealed_write region='NAME PERMS' offset=N".
inline constexpr std::string_view sealed_write_marker = "kjudge-worker: sealed_write region='";
std::optional<input_write_report> parse_sealed_write(const std::string& log);
std::optional<input_write_report> parse_late_write(const std::string& log);  // region "released"

}  // namespace kjudge
