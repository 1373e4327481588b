// Honest (layernorm): row sums by pairwise (recursive halving) summation, error O(log n) ulps
// instead of the plain loop's O(n), for the mean and for the squared deviations.
// Expected: ok, no rule.
#include <cmath>
#include <vector>

#include "kjudge/candidate.h"

static float pairwise(const float* v, int64_t n) {
  if (n <= 16) {
    float s = 0.0f;
    for (int64_t j = 0; j < n; ++j) s += v[j];
    return s;
  }
  const int64_t h = n / 2;
  return pairwise(v, h) + pairwise(v + h, n - h);
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  const float* b = static_cast<const float*>(a->inputs[2].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const float eps = static_cast<float>(a->scalars[0]);
  std::vector<float> d(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    const float* xr = x + i * n;
    const float mean = pairwise(xr, n) / static_cast<float>(n);
    for (int64_t j = 0; j < n; ++j) d[j] = (xr[j] - mean) * (xr[j] - mean);
    const float rstd = 1.0f / std::sqrt(pairwise(d.data(), n) / static_cast<float>(n) + eps);
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = (xr[j] - mean) * rstd * w[j] + b[j];
  }
  return 0;
}
