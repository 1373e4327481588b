#include "inputs/tf32.hpp"

#include "inputs/distributions.hpp"

namespace kjudge {

void round_to_tf32_random(host_tensor& t, std::uint64_t seed) {
  if (t.desc().type != dtype::f32) return;
  auto* p = static_cast<std::uint32_t*>(t.data());
  const std::size_t n = t.numel();
  std::uint64_t state = seed;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 64 == 0) state = mix_seed(seed, i);
    const std::uint32_t bits = p[i];
    if ((bits & 0x7f800000u) == 0x7f800000u || (bits & 0x1fffu) == 0) continue;  // inf, nan; on the grid
    const std::uint32_t toward_zero = bits & ~0x1fffu;
    const std::uint32_t away = toward_zero + 0x2000u;  // carries into the exponent where it must
    const bool up = (state >> (i % 64)) & 1u;
    // The largest finite values round away to infinity: those stay toward zero.
    p[i] = up && (away & 0x7f800000u) != 0x7f800000u ? away : toward_zero;
  }
}

}  // namespace kjudge
