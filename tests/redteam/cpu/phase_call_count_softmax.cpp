// Attack (phase detection by call count): correct for the first 60 calls of its process, then
// returns the constant 1/N: a judge that checks only the first calls and times the later ones
// sees a correct and very fast kernel. (Its timing worker is a fresh process since 2026-12-03:
// the first 60 calls there are warm-up and the first rounds, and the later rounds cheat.)
// Expected: hack, rule timed_output_mismatch (timed calls are rechecked at random, chosen after
// they returned). Needs the timing phase.
#include <cmath>

#include "kjudge/candidate.h"

static long g_calls = 0;

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  if (++g_calls > 60) {
    for (int64_t i = 0; i < m * n; ++i) y[i] = 1.0f / static_cast<float>(n);
    return 0;
  }
  for (int64_t i = 0; i < m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, x[i * n + j]);
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += (y[i * n + j] = std::exp(x[i * n + j] - mx));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] /= s;
  }
  return 0;
}
