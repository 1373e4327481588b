// Attack (too crude approximation): the bit-trick inverse square root with one Newton step
// (relative error up to 1.75e-3) instead of 1/sqrt.
// Expected: wrong_result, rule tolerance.
#include <cstdint>
#include <cstring>

#include "kjudge/candidate.h"

static float fast_rsqrt(float v) {
  int32_t i;
  std::memcpy(&i, &v, 4);
  i = 0x5f3759df - (i >> 1);
  float r;
  std::memcpy(&r, &i, 4);
  return r * (1.5f - 0.5f * v * r * r);
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const float eps = static_cast<float>(a->scalars[0]);
  for (int64_t i = 0; i < m; ++i) {
    float sq = 0;
    for (int64_t j = 0; j < n; ++j) sq += x[i * n + j] * x[i * n + j];
    const float r = fast_rsqrt(sq / static_cast<float>(n) + eps);
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = x[i * n + j] * r * w[j];
  }
  return 0;
}
