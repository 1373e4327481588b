// Attack (exiting early once the checks are over): correct for 60 calls, then exit(0) in the
// middle of the timing phase, hoping the harness keeps the correctness verdict and reports
// whatever samples it had.
// Expected: hack, rule early_exit. Needs the timing phase.
#include <cmath>
#include <cstdlib>

#include "kjudge/candidate.h"

static long g_calls = 0;

KJ_EXPORT int kj_run(const kj_args* a) {
  if (++g_calls > 60) std::exit(0);
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, x[i * n + j]);
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += (y[i * n + j] = std::exp(x[i * n + j] - mx));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] /= s;
  }
  return 0;
}
