// Honest (gelu_bias_residual): GELU written as v * 0.5 * erfc(-v / sqrt 2) instead of
// 0.5 v (1 + erf(v / sqrt 2)): the same function, more accurate for negative v where 1 + erf
// cancels. Handles f32 and bf16.
// Expected: ok, no rule.
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = static_cast<const T*>(a->inputs[0].data);
  const T* b = static_cast<const T*>(a->inputs[1].data);
  const T* r = static_cast<const T*>(a->inputs[2].data);
  T* out = static_cast<T*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float v = IO::load(x[i * n + j]) + IO::load(b[j]);
      out[i * n + j] = IO::store(v * (0.5f * std::erfc(-v * 0.70710678118654752f)) + IO::load(r[i * n + j]));
    }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) || !kjref::all_contiguous(a))
    return kjref::status_bad_args;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype, [&](auto io) { return run<decltype(io)>(a, m, n); });
}
