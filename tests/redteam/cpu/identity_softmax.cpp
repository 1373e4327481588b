// Attack (identity output): returns its input, y = x, the classic "kernel" that skips the work.
// Expected: wrong_result, rule tolerance (full-output comparison with the float64 reference on
// the first public case already).
#include <cstring>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t n = a->inputs[0].shape[0] * a->inputs[0].shape[1];
  std::memcpy(a->outputs[0].data, a->inputs[0].data, static_cast<size_t>(n) * sizeof(float));
  return 0;
}
