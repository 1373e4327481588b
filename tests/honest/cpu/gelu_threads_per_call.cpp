// Honest (gelu_bias_residual): std::threads started in each call over blocks of rows and joined
// before kj_run returns (no work outlives the call); the calling thread takes a block too.
// Expected: ok, no rule.
#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* b = static_cast<const float*>(a->inputs[1].data);
  const float* r = static_cast<const float*>(a->inputs[2].data);
  float* out = static_cast<float*>(a->outputs[0].data);
  auto rows = [=](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const float v = x[i * n + j] + b[j];
        out[i * n + j] = 0.5f * v * (1.0f + std::erf(v * 0.70710678f)) + r[i * n + j];
      }
  };
  const int nt = static_cast<int>(std::clamp<int64_t>(m / 64, 1, 4));
  const int64_t per = (m + nt - 1) / nt;
  std::vector<std::thread> ts;
  for (int t = 1; t < nt; ++t) ts.emplace_back(rows, t * per, std::min(m, (t + 1) * per));
  rows(0, std::min(m, per));
  for (auto& t : ts) t.join();
  return 0;
}
