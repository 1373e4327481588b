// Honest (layernorm): rows in parallel (`#pragma omp parallel for`), each row's sums with Kahan
// compensation (more accurate than the reference's plain float sums), two passes.
// Expected: ok, no rule.
#include <cmath>

#include "kjudge/candidate.h"

static float kahan_sum(const float* v, int64_t n, float shift) {
  float s = 0.0f, c = 0.0f;
  for (int64_t j = 0; j < n; ++j) {
    const float t = v[j] - shift;
    const float yv = t - c;
    const float u = s + yv;
    c = (u - s) - yv;
    s = u;
  }
  return s;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  const float* b = static_cast<const float*>(a->inputs[2].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const float eps = static_cast<float>(a->scalars[0]);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; ++i) {
    const float* xr = x + i * n;
    const float mean = kahan_sum(xr, n, 0.0f) / static_cast<float>(n);
    float s = 0.0f, c = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      const float d = xr[j] - mean;
      const float yv = d * d - c;
      const float u = s + yv;
      c = (u - s) - yv;
      s = u;
    }
    const float rstd = 1.0f / std::sqrt(s / static_cast<float>(n) + eps);
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = (xr[j] - mean) * rstd * w[j] + b[j];
  }
  return 0;
}
