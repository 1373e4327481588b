// Honest, naive softmax: per row the max, then the sum of exp(x - max), then a second call of
// expf per element for the output, so no scratch buffer is needed (and twice the exp work).
// Expected verdict: correct (ok_not_faster against the reference).
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = (const T*)a->inputs[0].data;
  T* y = (T*)a->outputs[0].data;
  for (int64_t i = 0; i < m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, IO::load(x[i * n + j]));
    float sum = 0.0f;
    for (int64_t j = 0; j < n; ++j) sum += std::exp(IO::load(x[i * n + j]) - mx);
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = IO::store(std::exp(IO::load(x[i * n + j]) - mx) / sum);
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

KJ_EXPORT const char* kj_info(void) { return "family=naive;notes=max, sum, recomputed exp"; }
