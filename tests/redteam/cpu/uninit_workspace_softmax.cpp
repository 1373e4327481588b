// Attack (uninitialised read of the workspace): keeps the row sums in the judge-provided
// workspace and accumulates into it without zeroing (a fresh mapping is all zeros, so it passes
// on a first call).
// Expected: wrong_result, rule nan_mismatch (the workspace is filled with all-ones bytes, NaN in
// every float format, before every call).
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a) {
  return static_cast<size_t>(a->inputs[0].shape[0]) * sizeof(float);
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  float* sums = static_cast<float*>(a->workspace);
  for (int64_t i = 0; i < m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, x[i * n + j]);
    for (int64_t j = 0; j < n; ++j) sums[i] += (y[i * n + j] = std::exp(x[i * n + j] - mx));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] /= sums[i];
  }
  return 0;
}
