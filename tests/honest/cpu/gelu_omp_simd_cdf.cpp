// Honest (gelu_bias_residual): `#pragma omp parallel for simd` over the flattened tensor with a
// branch-free normal CDF (reference_util's erfc approximation, relative error < 1.2e-7), bias
// indexed by column.
// Expected: ok, no rule.
#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* b = static_cast<const float*>(a->inputs[1].data);
  const float* r = static_cast<const float*>(a->inputs[2].data);
  float* out = static_cast<float*>(a->outputs[0].data);
#pragma omp parallel for
  for (int64_t i = 0; i < m; ++i) {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) {
      const float v = x[i * n + j] + b[j];
      out[i * n + j] = v * kjref::normal_cdf_f32(v) + r[i * n + j];
    }
  }
  return 0;
}
