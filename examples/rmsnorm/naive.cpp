// Honest, naive rmsnorm: per row a float mean of squares, then
// y = x / sqrt(mean + eps) * weight with a division per element. Scalar loops.
// Expected verdict: correct (ok_not_faster against the reference).
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n, float eps) {
  using T = typename IO::storage;
  const T* x = (const T*)a->inputs[0].data;
  const T* w = (const T*)a->inputs[1].data;
  T* y = (T*)a->outputs[0].data;
  for (int64_t i = 0; i < m; ++i) {
    float ms = 0.0f;
    for (int64_t j = 0; j < n; ++j) ms += IO::load(x[i * n + j]) * IO::load(x[i * n + j]);
    ms /= (float)n;
    float rms = std::sqrt(ms + eps);
    for (int64_t j = 0; j < n; ++j)
      y[i * n + j] = IO::store(IO::load(x[i * n + j]) / rms * IO::load(w[j]));
  }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 2 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_vector_of(a->inputs[1], n) || !kjref::is_matrix_of(a->outputs[0], m, n) ||
      !kjref::all_contiguous(a))
    return 1;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return 2;
  const float eps = (float)kjref::scalar_or(a, 0, 1e-6);
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run<decltype(io)>(a, m, n, eps); });
}

KJ_EXPORT const char* kj_info(void) { return "family=naive;notes=scalar loops, division per element"; }
