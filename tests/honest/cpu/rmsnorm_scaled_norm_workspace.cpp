// Honest (rmsnorm): the BLAS nrm2 approach (scale by the row's largest magnitude before squaring,
// so nothing overflows or underflows on heavy-tailed or tiny data), with the per-row scale
// factors kept in the judge-allocated workspace between a stats pass and an output pass.
// Expected: ok, no rule.
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a) {
  return static_cast<size_t>(a->inputs[0].shape[0]) * sizeof(float);
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  float* scale = static_cast<float*>(a->workspace);
  const float eps = static_cast<float>(a->scalars[0]);
  for (int64_t i = 0; i < m; ++i) {
    float amax = 0.0f;
    for (int64_t j = 0; j < n; ++j) amax = std::fmax(amax, std::fabs(x[i * n + j]));
    float ssq = 0.0f;
    if (amax > 0.0f) {
      const float inv = 1.0f / amax;
      for (int64_t j = 0; j < n; ++j) {
        const float t = x[i * n + j] * inv;
        ssq += t * t;
      }
    }
    // mean(x^2) = amax^2 * ssq / n, computed in double to keep amax^2 in range.
    const double ms = static_cast<double>(amax) * amax * ssq / static_cast<double>(n);
    scale[i] = static_cast<float>(1.0 / std::sqrt(ms + static_cast<double>(eps)));
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = x[i * n + j] * scale[i] * w[j];
  return 0;
}
