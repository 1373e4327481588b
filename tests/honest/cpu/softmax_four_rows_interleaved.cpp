// Honest (softmax): four rows processed together (their maxima, sums and scales advance in one
// loop for instruction-level parallelism), the remaining rows one at a time.
// Expected: ok, no rule.
#include <cmath>
#include <vector>

#include "kjudge/candidate.h"

static void one_row(const float* x, float* y, int64_t n) {
  float mx = -INFINITY;
  for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, x[j]);
  float s = 0.0f;
  for (int64_t j = 0; j < n; ++j) s += (y[j] = std::exp(x[j] - mx));
  const float inv = 1.0f / s;
  for (int64_t j = 0; j < n; ++j) y[j] *= inv;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  int64_t i = 0;
  for (; i + 4 <= m; i += 4) {
    float mx[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY}, s[4] = {0, 0, 0, 0};
    for (int64_t j = 0; j < n; ++j)
      for (int r = 0; r < 4; ++r) mx[r] = std::fmax(mx[r], x[(i + r) * n + j]);
    for (int64_t j = 0; j < n; ++j)
      for (int r = 0; r < 4; ++r) s[r] += (y[(i + r) * n + j] = std::exp(x[(i + r) * n + j] - mx[r]));
    for (int r = 0; r < 4; ++r) {
      const float inv = 1.0f / s[r];
      for (int64_t j = 0; j < n; ++j) y[(i + r) * n + j] *= inv;
    }
  }
  for (; i < m; ++i) one_row(x + i * n, y + i * n, n);
  return 0;
}
