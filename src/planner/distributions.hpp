// Input distributions (DESIGN.md §3) and the deterministic input generator. The controller and
// the workers run the same code: a worker generates a call's inputs from (descs, distribution,
// seed) and the controller regenerates them bit for bit to compute the reference.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.hpp"

namespace kjudge {

// Names accepted in problem specs:
//   uniform  U[0,1)
//   normal   N(0,1)
//   negative all strictly negative: -(|N(0,1)| + 1e-3)
//   wide     random sign, magnitude log-uniform in [1e-4, 1e4]
//   offset   large offset plus noise: input i gets (+1e4 or -1e4 alternating by input index) +
//            N(0,1), so sums of inputs cancel catastrophically (x + bias with x ~ -bias ~ 1e4);
//            for 16-bit dtypes the noise is N(0,1) * 16 ulps of 1e4 (~1250 bf16, ~156 f16),
//            since unit noise would round away and leave a constant tensor
//   heavy    heavy tails: Student-t with 2 degrees of freedom (clipped to +-1e6)
//   small    N(0,1) * 1e-3
//   large    N(0,1) * 1e3
const std::vector<std::string>& known_distributions();
bool is_known_distribution(std::string_view name);

// Fills `t` with values of `distribution` drawn from a counter-based generator keyed by `seed`;
// `input_index` selects the per-input offset sign of "offset". Values are rounded to t's dtype.
// Element i depends only on (seed, i, distribution, input_index, dtype class): a tensor is a
// prefix of a larger one, and values agree bit for bit across machines and compilers. f64
// tensors use a 53-bit double-precision generator (~25 ns/element); all other dtypes a 24-bit
// single-precision one (a few ns/element, vectorized), so an f64 and an f32 tensor of the same
// seed hold different values. Throws usage_error for an unknown distribution.
void fill_distribution(host_tensor& t, std::string_view distribution, std::uint64_t seed,
                       int input_index);

// All inputs of a call: input i uses its own fixed distribution when given, else `distribution`,
// and seed mix(seed, i).
struct input_plan {
  tensor_desc desc;
  std::string distribution;  // empty: the call's distribution
};
std::vector<host_tensor> generate_inputs(const std::vector<input_plan>& inputs,
                                         std::string_view distribution, std::uint64_t seed);

// splitmix64 step; used to derive sub-seeds.
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t salt);

}  // namespace kjudge
