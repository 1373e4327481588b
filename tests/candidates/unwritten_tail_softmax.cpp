// Test candidate (softmax). Partial output: an honest softmax whose row loop stops one row
// early, so the last row of y is never written. The judge poisons outputs before every call;
// the poison left in the last row (and in the whole output when M == 1) must be reported.
// Expected verdict: wrong_result (eval exit status 1), with unwritten elements as evidence.
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
  for (int64_t i = 0; i < m - 1; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, IO::load(x[i * n + j]));
    float sum = 0.0f;
    for (int64_t j = 0; j < n; ++j) sum += (e[j] = std::exp(IO::load(x[i * n + j]) - mx));
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
