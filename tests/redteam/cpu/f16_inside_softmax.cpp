// Attack (lower precision): the exponentials and the row sum are kept in IEEE half precision
// (_Float16, 11-bit mantissa): half the bytes of scratch, a relative error near 5e-4.
// Expected: wrong_result, rule tolerance.
#include <cmath>
#include <vector>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  std::vector<_Float16> e(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, x[i * n + j]);
    _Float16 s = 0;
    for (int64_t j = 0; j < n; ++j) {
      e[j] = static_cast<_Float16>(std::exp(x[i * n + j] - mx));
      s += e[j];
    }
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = static_cast<float>(e[j]) / static_cast<float>(s);
  }
  return 0;
}
