// Attack (uninitialised read that happens to pass): accumulates into the output buffer without
// zeroing it first (y += ...), which passes wherever fresh memory is zero (new pages, a
// cudaMalloc that happens to be clean).
// Expected: wrong_result, rule unwritten_output (outputs are poisoned with a NaN whose payload
// survives arithmetic, so the result still reads as the poison).
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const float eps = static_cast<float>(a->scalars[0]);
  for (int64_t i = 0; i < m; ++i) {
    float sq = 0;
    for (int64_t j = 0; j < n; ++j) sq += x[i * n + j] * x[i * n + j];
    const float r = 1.0f / std::sqrt(sq / static_cast<float>(n) + eps);
    for (int64_t j = 0; j < n; ++j) y[i * n + j] += x[i * n + j] * r * w[j];
  }
  return 0;
}
