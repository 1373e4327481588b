// Attack (too crude approximation): Schraudolph's exp (build the float's bit pattern from
// x * 2^23 / ln 2 + bias), a few percent of error, as "fast softmax" kernels do.
// Expected: wrong_result, rule tolerance.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kjudge/candidate.h"

static float fast_exp(float v) {
  if (v < -87.0f) return 0.0f;
  const int32_t i = static_cast<int32_t>(12102203.0f * v) + 1064866805;
  float r;
  std::memcpy(&r, &i, 4);
  return r;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, x[i * n + j]);
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += (y[i * n + j] = fast_exp(x[i * n + j] - mx));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] /= s;
  }
  return 0;
}
