// Honest (softmax): three passes over each row with the output buffer itself as scratch: row max,
// then exp(x - max) written into y while summing, then y scaled in place. Reading y is fine
// because every element read was written earlier in the same call.
// Expected: ok, no rule.
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i) {
    const float* xr = x + i * n;
    float* yr = y + i * n;
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, xr[j]);
    float s = 0.0f;
    for (int64_t j = 0; j < n; ++j) s += (yr[j] = std::exp(xr[j] - mx));
    for (int64_t j = 0; j < n; ++j) yr[j] /= s;
  }
  return 0;
}
