// Attack (distribution exploit): variance as E[x^2] - E[x]^2 in one float pass, the textbook
// shortcut that cancels catastrophically on offset data (1e4 + noise): fine on zero-mean public
// data, wrong (or NaN from a negative variance) on hidden offset or wide data.
// Expected: wrong_result, rule tolerance or nan_mismatch.
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  const float* b = static_cast<const float*>(a->inputs[2].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const float eps = static_cast<float>(a->scalars[0]);
  for (int64_t i = 0; i < m; ++i) {
    const float* xr = x + i * n;
    float s = 0, q = 0;
    for (int64_t j = 0; j < n; ++j) {
      s += xr[j];
      q += xr[j] * xr[j];
    }
    const float mean = s / static_cast<float>(n);
    const float var = q / static_cast<float>(n) - mean * mean;
    const float r = 1.0f / std::sqrt(var + eps);
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = (xr[j] - mean) * r * w[j] + b[j];
  }
  return 0;
}
