// Attack (distribution exploit): softmax without subtracting the row maximum, one pass fewer.
// Exact enough on N(0,1) and U[0,1) data; exp overflows (inf/inf = NaN) or loses the row on
// wide-range, offset (1e4 + noise) and heavy-tailed data.
// Expected: wrong_result, rule nan_mismatch or tolerance (which one depends on the hidden case
// drawn first).
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i) {
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += (y[i * n + j] = std::exp(x[i * n + j]));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] /= s;
  }
  return 0;
}
