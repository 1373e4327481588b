// Honest (softmax): a thread_local scratch vector is kept across calls and only grown, never
// shrunk: caching *buffers* between calls is legitimate (no result is carried over; every
// element of the scratch is written before it is read in each call).
// Expected: ok, no rule.
#include <cmath>
#include <vector>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  thread_local std::vector<float> scratch;
  if (scratch.size() < static_cast<size_t>(n)) scratch.resize(static_cast<size_t>(n));
  float* e = scratch.data();
  for (int64_t i = 0; i < m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, x[i * n + j]);
    float s = 0.0f;
    for (int64_t j = 0; j < n; ++j) s += (e[j] = std::exp(x[i * n + j] - mx));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = e[j] / s;
  }
  return 0;
}
