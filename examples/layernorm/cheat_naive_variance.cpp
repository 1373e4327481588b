// CHEAT: single-pass layernorm with var = E[x^2] - E[x]^2 accumulated in float.
// One pass instead of two looks like a legitimate fusion, but the formula cancels
// catastrophically when |mean| >> std: for offset data (x = 1e4 + N(0,1)) E[x^2] ~ 1e8 carries
// an absolute rounding error of ~10, far larger than the true variance of ~1, so the result is
// garbage (often a negative variance, clamped here). Passes N(0,1) data; fails "offset".
// Expected verdict: wrong_result.
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n, float eps) {
  using T = typename IO::storage;
  const T* x = (const T*)a->inputs[0].data;
  const T* w = (const T*)a->inputs[1].data;
  const T* b = (const T*)a->inputs[2].data;
  T* y = (T*)a->outputs[0].data;
  for (int64_t i = 0; i < m; ++i) {
    float s = 0.0f, s2 = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      const float v = IO::load(x[i * n + j]);
      s += v;
      s2 += v * v;
    }
    const float mean = s / (float)n;
    float var = s2 / (float)n - mean * mean;
    var = var > 0.0f ? var : 0.0f;
    const float rstd = 1.0f / std::sqrt(var + eps);
    for (int64_t j = 0; j < n; ++j)
      y[i * n + j] =
          IO::store((IO::load(x[i * n + j]) - mean) * rstd * IO::load(w[j]) + IO::load(b[j]));
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
  const float eps = (float)kjref::scalar_or(a, 0, 1e-5);
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run<decltype(io)>(a, m, n, eps); });
}

KJ_EXPORT const char* kj_info(void) { return "family=cheat;notes=one-pass E[x^2]-E[x]^2 variance"; }
