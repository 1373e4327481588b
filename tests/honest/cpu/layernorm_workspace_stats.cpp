// Honest (layernorm): three passes over the whole matrix with the per-row mean and 1/std kept in
// the judge-allocated workspace (kj_workspace_bytes = 2 M floats): all means, then all variances,
// then the output. Every workspace element is written before it is read.
// Expected: ok, no rule.
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a) {
  return 2 * static_cast<size_t>(a->inputs[0].shape[0]) * sizeof(float);
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  if (a->workspace_bytes < 2 * static_cast<size_t>(m) * sizeof(float)) return 1;
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  const float* b = static_cast<const float*>(a->inputs[2].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  float* mean = static_cast<float*>(a->workspace);
  float* rstd = mean + m;
  const float eps = static_cast<float>(a->scalars[0]);
  for (int64_t i = 0; i < m; ++i) {
    float s = 0.0f;
    for (int64_t j = 0; j < n; ++j) s += x[i * n + j];
    mean[i] = s / static_cast<float>(n);
  }
  for (int64_t i = 0; i < m; ++i) {
    float q = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      const float d = x[i * n + j] - mean[i];
      q += d * d;
    }
    rstd[i] = 1.0f / std::sqrt(q / static_cast<float>(n) + eps);
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = (x[i * n + j] - mean[i]) * rstd[i] * w[j] + b[j];
  return 0;
}
