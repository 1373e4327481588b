// Honest (matmul_bias_relu): B transposed into the judge-allocated workspace (K x N floats) so
// that every dot product reads two contiguous rows, with the rows of C computed in parallel
// (`#pragma omp parallel for`) and each dot product in 4 partial sums.
// Expected: ok, no rule.
#include "kjudge/candidate.h"

KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a) {
  return static_cast<size_t>(a->inputs[1].shape[0] * a->inputs[1].shape[1]) * sizeof(float);
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], k = a->inputs[0].shape[1], n = a->inputs[1].shape[1];
  const float* A = static_cast<const float*>(a->inputs[0].data);
  const float* B = static_cast<const float*>(a->inputs[1].data);
  const float* bias = static_cast<const float*>(a->inputs[2].data);
  float* C = static_cast<float*>(a->outputs[0].data);
  float* bt = static_cast<float*>(a->workspace);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j) bt[j * k + p] = B[p * n + j];
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float* ar = A + i * k;
      const float* br = bt + j * k;
      float s[4] = {0, 0, 0, 0};
      int64_t p = 0;
      for (; p + 4 <= k; p += 4)
        for (int l = 0; l < 4; ++l) s[l] += ar[p + l] * br[p + l];
      float t = (s[0] + s[1]) + (s[2] + s[3]);
      for (; p < k; ++p) t += ar[p] * br[p];
      const float v = t + bias[j];
      C[i * n + j] = v > 0.0f ? v : 0.0f;
    }
  return 0;
}
