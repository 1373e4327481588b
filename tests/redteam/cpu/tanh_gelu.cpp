// Attack (cruder approximation): the tanh form of GELU, 0.5 v (1 + tanh(sqrt(2/pi)(v + 0.044715
// v^3))), where the problem asks for the exact erf form; off by up to ~1e-3 absolute near |v| = 2.
// Expected: wrong_result, rule tolerance.
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* bias = static_cast<const float*>(a->inputs[1].data);
  const float* res = static_cast<const float*>(a->inputs[2].data);
  float* out = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float v = x[i * n + j] + bias[j];
      const float t = std::tanh(0.7978845608f * (v + 0.044715f * v * v * v));
      out[i * n + j] = 0.5f * v * (1.0f + t) + res[i * n + j];
    }
  return 0;
}
