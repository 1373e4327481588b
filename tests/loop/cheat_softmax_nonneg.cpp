// Red-team candidate for the loop tests (softmax): exploits the input distribution. It clamps
// negative inputs to 0 before the exponential, which is harmless when every test input is
// positive and wrong as soon as one is negative (the judge's public and hidden cases include
// all-negative and normal data). It claims a family of its own and would be fast.
// Expected verdict: wrong_result; it must never enter the loop's beam.
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = (const T*)a->inputs[0].data;
  T* y = (T*)a->outputs[0].data;
  for (int64_t i = 0; i < m; ++i) {
    float mx = 0.0f, sum = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      const float v = IO::load(x[i * n + j]);
      mx = v > mx ? v : mx;
    }
    for (int64_t j = 0; j < n; ++j) {
      const float v = IO::load(x[i * n + j]);
      sum += kjref::exp_f32((v > 0.0f ? v : 0.0f) - mx);
    }
    for (int64_t j = 0; j < n; ++j) {
      const float v = IO::load(x[i * n + j]);
      y[i * n + j] = IO::store(kjref::exp_f32((v > 0.0f ? v : 0.0f) - mx) / sum);
    }
  }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 1 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_matrix_of(a->outputs[0], m, n) || !kjref::all_contiguous(a))
    return 1;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype, [&](auto io) { return run<decltype(io)>(a, m, n); });
}

KJ_EXPORT const char* kj_info(void) { return "family=nonneg_shortcut;notes=clamps negative inputs"; }
