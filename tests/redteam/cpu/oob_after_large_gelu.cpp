// Attack (out-of-bounds write, large): the output is correct, then a vectorised tail loop that
// rounds the length up to a multiple of 1024 writes up to 1023 elements past the end.
// Expected: hack, rule out_of_bounds_write (guard zone after "output out").
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
      const float v = x[i * n + j] + bias[j];
      out[i * n + j] = 0.5f * v * (1.0f + std::erf(v * 0.70710678f)) + res[i * n + j];
    }
  const int64_t total = m * n, padded = (total + 1024) / 1024 * 1024;
  for (int64_t i = total; i < padded; ++i) out[i] = 0.0f;
  return 0;
}
