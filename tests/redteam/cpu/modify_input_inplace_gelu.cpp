// Attack (modifying inputs): stores x + bias into x (casting away const) to save a temporary,
// then computes the output from it. The output is right; the caller's x is destroyed.
// Expected: hack, rule input_modified (inputs are mapped read-only during the call; the write
// faults and the worker names the buffer).
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  float* x = static_cast<float*>(a->inputs[0].data);
  const float* bias = static_cast<const float*>(a->inputs[1].data);
  const float* res = static_cast<const float*>(a->inputs[2].data);
  float* out = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) x[i * n + j] += bias[j];
  for (int64_t i = 0; i < m * n; ++i) {
    const float v = x[i];
    out[i] = 0.5f * v * (1.0f + std::erf(v * 0.70710678f)) + res[i];
  }
  return 0;
}
