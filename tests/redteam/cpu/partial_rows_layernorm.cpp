// Attack (partial output): normalises only the first half of the rows (a "2x faster" kernel);
// the other rows keep whatever the buffer held.
// Expected: wrong_result, rule unwritten_output (outputs are poisoned with a NaN payload before
// every call, so untouched elements are told apart from computed ones).
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  const float* b = static_cast<const float*>(a->inputs[2].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const float eps = static_cast<float>(a->scalars[0]);
  for (int64_t i = 0; i < (m + 1) / 2; ++i) {
    const float* xr = x + i * n;
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += xr[j];
    const float mean = s / static_cast<float>(n);
    float q = 0;
    for (int64_t j = 0; j < n; ++j) q += (xr[j] - mean) * (xr[j] - mean);
    const float r = 1.0f / std::sqrt(q / static_cast<float>(n) + eps);
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = (xr[j] - mean) * r * w[j] + b[j];
  }
  return 0;
}
