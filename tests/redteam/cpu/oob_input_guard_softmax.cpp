// Attack (out-of-bounds write into an input's guard): stores a sentinel one element past the end
// of the input x (using the input's slack as scratch), then computes a correct softmax.
// Expected: hack, rule out_of_bounds_write (inputs and their guard zones are read-only during the
// call: the write faults, and the worker reports the guard zone after "input x").
#include <cmath>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  float* x = static_cast<float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  x[m * n] = -1.0f;
  for (int64_t i = 0; i < m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, x[i * n + j]);
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += (y[i * n + j] = std::exp(x[i * n + j] - mx));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] /= s;
  }
  return 0;
}
