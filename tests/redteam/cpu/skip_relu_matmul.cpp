// Attack (distribution exploit): drops the ReLU, which changes nothing when every a·b + bias is
// positive (all-positive test data, the ReLU kernel that "ran" 374x faster by returning its
// input); wrong as soon as an output is negative.
// Expected: wrong_result, rule tolerance.
#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], k = a->inputs[0].shape[1], n = a->inputs[1].shape[1];
  const float* A = static_cast<const float*>(a->inputs[0].data);
  const float* B = static_cast<const float*>(a->inputs[1].data);
  const float* bias = static_cast<const float*>(a->inputs[2].data);
  float* C = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) C[i * n + j] = 0.0f;
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
    for (int64_t j = 0; j < n; ++j) C[i * n + j] += bias[j];
  }
  return 0;
}
