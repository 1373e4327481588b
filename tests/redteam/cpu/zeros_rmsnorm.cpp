// Attack (constant output): fills the output with zeros, every element written, nothing
// computed.
// Expected: wrong_result, rule tolerance.
#include <cstring>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t n = a->outputs[0].shape[0] * a->outputs[0].shape[1];
  std::memset(a->outputs[0].data, 0, static_cast<size_t>(n) * sizeof(float));
  return 0;
}
