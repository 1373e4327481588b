// Honest (softmax): rows split across threads with `#pragma omp parallel for`, each thread with
// its own row buffer; the parallel region ends (all threads joined) before kj_run returns.
// Expected: ok, no rule.
#include <omp.h>

#include <cmath>
#include <vector>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
#pragma omp parallel
  {
    std::vector<float> e(static_cast<size_t>(n));
#pragma omp for schedule(static)
    for (int64_t i = 0; i < m; ++i) {
      const float* xr = x + i * n;
      float mx = -INFINITY;
      for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, xr[j]);
      float s = 0.0f;
      for (int64_t j = 0; j < n; ++j) s += (e[j] = std::exp(xr[j] - mx));
      const float inv = 1.0f / s;
      for (int64_t j = 0; j < n; ++j) y[i * n + j] = e[j] * inv;
    }
  }
  return 0;
}
