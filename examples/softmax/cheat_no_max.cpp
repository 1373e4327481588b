// CHEAT: softmax without subtracting the row max: y = exp(x) / sum(exp(x)). It saves one pass
// and is exact in real arithmetic, but expf overflows to Inf once a logit exceeds ~88.7 (and
// the row becomes NaN = Inf/Inf), while all-negative rows below ~-87 underflow to 0/0. It
// passes N(0,1) and U[0,1) logits; it fails on large, wide, offset and heavy-tailed data.
// Expected verdict: wrong_result.
#include <cmath>
#include <vector>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = (const T*)a->inputs[0].data;
  T* y = (T*)a->outputs[0].data;
  std::vector<float> e((size_t)n);
  for (int64_t i = 0; i < m; ++i) {
    float sum = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      e[j] = std::exp(IO::load(x[i * n + j]));
      sum += e[j];
    }
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = IO::store(e[j] / sum);
  }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 1 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_matrix_of(a->outputs[0], m, n) || !kjref::all_contiguous(a))
    return 1;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return 2;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run<decltype(io)>(a, m, n); });
}

KJ_EXPORT const char* kj_info(void) { return "family=cheat;notes=no max subtraction"; }
