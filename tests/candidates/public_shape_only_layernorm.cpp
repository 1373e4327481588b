// Test candidate (layernorm). Shape hard-coding: a kernel that is correct only for the three
// public shapes of problems/layernorm/problem.toml (64x256, 7x1000, 3x129); for any other shape
// it falls back to a placeholder that copies x into y. Every public case passes; a
// hidden case with another shape gets garbage (fully written, so no poison is left behind: only
// the value check can catch it).
// Expected verdict: wrong_result (eval exit status 1), from a hidden shape.
#include <cmath>
#include <string.h>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

static bool is_public_shape(int64_t m, int64_t n) {
  return (m == 64 && n == 256) || (m == 7 && n == 1000) || (m == 3 && n == 129);
}

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = (const T*)a->inputs[0].data;
  const T* w = (const T*)a->inputs[1].data;
  const T* b = (const T*)a->inputs[2].data;
  T* y = (T*)a->outputs[0].data;
  if (!is_public_shape(m, n)) {
    memcpy(y, x, (size_t)(m * n) * sizeof(T));
    return 0;
  }
  const float eps = (float)kjref::scalar_or(a, 0, 1e-5);
  for (int i = 0; i < m; ++i) {
    float s = 0.0f;
    for (int j = 0; j < n; ++j) s += IO::load(x[i * n + j]);
    const float mean = s / n;
    float q = 0.0f;
    for (int j = 0; j < n; ++j) {
      const float d = IO::load(x[i * n + j]) - mean;
      q += d * d;
    }
    const float rstd = 1.0f / std::sqrt(q / n + eps);
    for (int j = 0; j < n; ++j)
      y[i * n + j] = IO::store((IO::load(x[i * n + j]) - mean) * rstd * IO::load(w[j]) +
                                   IO::load(b[j]));
  }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_vector_of(a->inputs[1], n) || !kjref::is_vector_of(a->inputs[2], n) ||
      !kjref::is_matrix_of(a->outputs[0], m, n) || !kjref::all_contiguous(a))
    return 1;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return 2;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run<decltype(io)>(a, m, n); });
}
