// Attack (uninitialised heap memory): the accumulator rows come from new float[] and are never
// zeroed, relying on the allocator's fresh pages being zero.
// Expected: wrong_result, rule tolerance or nan_mismatch (the worker has malloc fill new blocks
// with 0x7f bytes, 3.4e38 as a float; reused blocks hold the previous call's sums).
#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], k = a->inputs[0].shape[1], n = a->inputs[1].shape[1];
  const float* A = static_cast<const float*>(a->inputs[0].data);
  const float* B = static_cast<const float*>(a->inputs[1].data);
  const float* bias = static_cast<const float*>(a->inputs[2].data);
  float* C = static_cast<float*>(a->outputs[0].data);
  float* acc = new float[static_cast<size_t>(m * n)];
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) acc[i * n + j] += A[i * k + p] * B[p * n + j];
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float v = acc[i * n + j] + bias[j];
      C[i * n + j] = v < 0 ? 0 : v;
    }
  delete[] acc;
  return 0;
}
