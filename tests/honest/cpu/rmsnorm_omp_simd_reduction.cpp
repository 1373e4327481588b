// Honest (rmsnorm): rows in parallel, each row's sum of squares as a `#pragma omp simd
// reduction(+:sq)` (vector lanes summed in a different order from the reference).
// Expected: ok, no rule.
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const float eps = static_cast<float>(a->scalars[0]);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; ++i) {
    const float* xr = x + i * n;
    float sq = 0.0f;
#pragma omp simd reduction(+ : sq)
    for (int64_t j = 0; j < n; ++j) sq += xr[j] * xr[j];
    const float r = 1.0f / std::sqrt(sq / static_cast<float>(n) + eps);
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = xr[j] * r * w[j];
  }
  return 0;
}
