// Honest (gelu_bias_residual): processes the matrix in 32 x 256 tiles (rows x columns), loading
// the bias slice of a column block once per tile into a local array; ragged edges handled.
// Expected: ok, no rule.
#include <algorithm>
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* b = static_cast<const float*>(a->inputs[1].data);
  const float* r = static_cast<const float*>(a->inputs[2].data);
  float* out = static_cast<float*>(a->outputs[0].data);
  constexpr int64_t tr = 32, tc = 256;
  float bias_tile[tc];
  for (int64_t j0 = 0; j0 < n; j0 += tc) {
    const int64_t jn = std::min(tc, n - j0);
    for (int64_t k = 0; k < jn; ++k) bias_tile[k] = b[j0 + k];
    for (int64_t i0 = 0; i0 < m; i0 += tr)
      for (int64_t i = i0; i < std::min(m, i0 + tr); ++i)
        for (int64_t k = 0; k < jn; ++k) {
          const int64_t idx = i * n + j0 + k;
          const float v = x[idx] + bias_tile[k];
          out[idx] = 0.5f * v * (1.0f + std::erf(v * 0.70710678f)) + r[idx];
        }
  }
  return 0;
}
