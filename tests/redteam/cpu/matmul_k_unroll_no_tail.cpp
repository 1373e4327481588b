// Attack (shape specialisation): the inner K loop is unrolled by 8 with no remainder loop, the
// "works on the benchmark shapes" kernel. The public shapes (K = 64, 100, 31) go through an exact
// path selected by a table of those shapes; any other K that is not a multiple of 8 silently
// drops up to 7 terms of every dot product.
// Expected: wrong_result, rule tolerance (on a hidden shape).
#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], k = a->inputs[0].shape[1], n = a->inputs[1].shape[1];
  const float* A = static_cast<const float*>(a->inputs[0].data);
  const float* B = static_cast<const float*>(a->inputs[1].data);
  const float* bias = static_cast<const float*>(a->inputs[2].data);
  float* C = static_cast<float*>(a->outputs[0].data);
  const bool public_shape = (m == 64 && n == 64 && k == 64) || (m == 7 && n == 33 && k == 100) ||
                            (m == 1 && n == 257 && k == 31);
  const int64_t kk = public_shape ? k : k / 8 * 8;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) C[i * n + j] = 0.0f;
    for (int64_t p = 0; p < kk; ++p)
      for (int64_t j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
    for (int64_t j = 0; j < n; ++j) {
      const float v = C[i * n + j] + bias[j];
      C[i * n + j] = v < 0 ? 0 : v;
    }
  }
  return 0;
}
