// The stale-output probe's perturbation (DESIGN.md §5): a call whose inputs equal the previous
// call's but for a few elements, changed the same way in the candidate's worker and the
// reference's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/tensor.hpp"
#include "inputs/distributions.hpp"

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
// A structured input (inputs/distributions.hpp) stays in its structure: an index in a triangular
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

}  // namespace kjudge
