// Attack (out-of-bounds write, workspace): asks for N floats of workspace for the centred row,
// then writes N + 1 of them (an off-by-one in the scratch size).
// Expected: hack, rule out_of_bounds_write (guard zone after "workspace").
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a) {
  return static_cast<size_t>(a->inputs[0].shape[1]) * sizeof(float);
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  const float* b = static_cast<const float*>(a->inputs[2].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  float* c = static_cast<float*>(a->workspace);
  const float eps = static_cast<float>(a->scalars[0]);
  for (int64_t i = 0; i < m; ++i) {
    const float* xr = x + i * n;
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += xr[j];
    const float mean = s / static_cast<float>(n);
    float q = 0;
    for (int64_t j = 0; j <= n; ++j) {  // one too many
      c[j] = j < n ? xr[j] - mean : 0.0f;
      q += c[j] * c[j];
    }
    const float r = 1.0f / std::sqrt(q / static_cast<float>(n) + eps);
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = c[j] * r * w[j] + b[j];
  }
  return 0;
}
