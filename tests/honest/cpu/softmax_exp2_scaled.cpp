// Honest (softmax): exp(x - max) computed as exp2((x - max) * log2 e), as FlashAttention-style
// kernels do (exp2 is the cheaper instruction on GPUs); the extra rounding of the product is of
// the same order as the rounding of x - max itself.
// Expected: ok, no rule.
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  constexpr float log2e = 1.4426950408889634f;
  for (int64_t i = 0; i < m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, x[i * n + j]);
    float s = 0.0f;
    for (int64_t j = 0; j < n; ++j) s += (y[i * n + j] = std::exp2((x[i * n + j] - mx) * log2e));
    const float inv = 1.0f / s;
    for (int64_t j = 0; j < n; ++j) y[i * n + j] *= inv;
  }
  return 0;
}
