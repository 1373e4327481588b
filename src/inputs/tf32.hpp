// TF32 rounding of f32 operands, drawn: how the oracle's envelope runs and the worker's reference
// runs model a TF32 tensor-core kernel's operand rounding.
#pragma once

#include <cstdint>

#include "core/tensor.hpp"

namespace kjudge {

// Moves every finite f32 element to one of its two neighbouring TF32 values (10 explicit
// mantissa bits), the direction drawn from `seed`; elements already on the TF32 grid stay. Other
// dtypes stay. One envelope run of a TF32-permitted problem: an independent draw of the operand
// rounding a TF32 tensor-core kernel makes. A single round-to-nearest run (the earlier scheme) was
// one fixed draw per element, and where a nonlinearity after the matmul or conv amplifies the
// error unevenly along a row (tanh, softmax, clamp near its kinks) or a row is one element
// (KernelBench level 2, shape [1024, 1]), honest torch with TF32 on missed 8x that draw on a few
// elements in 10^8 (level 2 #1, #2, #5, #13, #14 on the H200, 2026-12-04, H200). A random direction's
// error is up to one TF32 ulp (twice round-to-nearest's RMS); independent draws of it
// (envelope_runs, protocol/messages.hpp), with the parameters of a Python reference rounded alike
// (hosted_program::round_parameters), cover it except at a one-sided kink alone in its row
// (a clamp; level 2 #2); docs/notebook/2026-12-04-tf32-envelope-draws.md has the simulation and the H200 figures.
void round_to_tf32_random(host_tensor& t, std::uint64_t seed);

}  // namespace kjudge
