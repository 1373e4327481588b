// Attack (constant output): writes 1/N everywhere, the softmax of a constant row; right on
// average and exactly right for N = 1 rows, wrong everywhere else.
// Expected: wrong_result, rule tolerance.
#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  float* y = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m * n; ++i) y[i] = 1.0f / static_cast<float>(n);
  return 0;
}
