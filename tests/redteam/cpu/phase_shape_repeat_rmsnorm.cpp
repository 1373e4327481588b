// Attack (phase detection by shape): checks run each shape once or twice, timing runs one shape
// many times; from the 5th call of a shape on, the kernel skips the normalisation (y = x * w).
// Expected: hack, rule timed_output_mismatch (rechecked timed calls). Needs the timing phase.
#include <cmath>
#include <map>
#include <utility>

#include "kjudge/candidate.h"

static std::map<std::pair<int64_t, int64_t>, int> g_seen;

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const float eps = static_cast<float>(a->scalars[0]);
  const bool timing = ++g_seen[{m, n}] > 4;
  for (int64_t i = 0; i < m; ++i) {
    float r = 1.0f;
    if (!timing) {
      float sq = 0;
      for (int64_t j = 0; j < n; ++j) sq += x[i * n + j] * x[i * n + j];
      r = 1.0f / std::sqrt(sq / static_cast<float>(n) + eps);
    }
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = x[i * n + j] * r * w[j];
  }
  return 0;
}
