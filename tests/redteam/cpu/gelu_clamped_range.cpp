// Attack (distribution exploit): a "fast GELU" valid on the range the public cases use: the
// argument is clamped to [-10, 10] (a polynomial fitted there would be the next step). Every
// public case (normal, uniform, negative data) stays inside; wide-range, offset and heavy-tailed
// hidden data does not.
// Expected: wrong_result, rule tolerance (on a hidden case).
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* bias = static_cast<const float*>(a->inputs[1].data);
  const float* res = static_cast<const float*>(a->inputs[2].data);
  float* out = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float v = x[i * n + j] + bias[j];
      v = v < -10.0f ? -10.0f : (v > 10.0f ? 10.0f : v);
      out[i * n + j] = 0.5f * v * (1.0f + std::erf(v * 0.70710678f)) + res[i * n + j];
    }
  return 0;
}
