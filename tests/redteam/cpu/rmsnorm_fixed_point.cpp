// Attack (distribution exploit): x is converted to 32-bit fixed point with 20 fractional bits
// (|x| < 2048 assumed) to use integer arithmetic. The rounding (< 5e-7) hides under atol on the
// public data; values of 1e4 (wide, offset) overflow the format and tiny ones lose their digits.
// Expected: wrong_result, rule tolerance (on a hidden case).
#include <cmath>
#include <cstdint>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const float eps = static_cast<float>(a->scalars[0]);
  constexpr float scale = 1048576.0f;  // 2^20
  for (int64_t i = 0; i < m; ++i) {
    double sq = 0;
    for (int64_t j = 0; j < n; ++j) {
      const int32_t q = static_cast<int32_t>(static_cast<int64_t>(std::lrint(x[i * n + j] * scale)));
      const double v = q / static_cast<double>(scale);
      sq += v * v;
    }
    const float r = 1.0f / std::sqrt(static_cast<float>(sq / static_cast<double>(n)) + eps);
    for (int64_t j = 0; j < n; ++j) {
      const int32_t q = static_cast<int32_t>(static_cast<int64_t>(std::lrint(x[i * n + j] * scale)));
      y[i * n + j] = (static_cast<float>(q) / scale) * r * w[j];
    }
  }
  return 0;
}
