// Test candidate (rmsnorm). Lower precision than allowed: for the f32 problem it rounds every
// input element and the weight to bf16 on load (8 significant bits), then computes in float.
// That is a relative error of up to 2^-9 ~ 2e-3 per element, 200x the f32 tolerance, on every
// distribution. (In the bf16 variant the rounding is a no-op and it is as accurate as the
// reference, so the verdict must come from the f32 variant.)
// Expected verdict: wrong_result (eval exit status 1).
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

static inline float to_bf16(float v) { return kjref::bf16_to_f32(kjref::f32_to_bf16(v)); }

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = (const T*)a->inputs[0].data;
  const T* w = (const T*)a->inputs[1].data;
  T* y = (T*)a->outputs[0].data;
  const float eps = (float)kjref::scalar_or(a, 0, 1e-6);
  for (int64_t i = 0; i < m; ++i) {
    float ss = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      const float v = to_bf16(IO::load(x[i * n + j]));
      ss += v * v;
    }
    const float r = 1.0f / std::sqrt(ss / (float)n + eps);
    for (int64_t j = 0; j < n; ++j)
      y[i * n + j] = IO::store(to_bf16(IO::load(x[i * n + j])) * r * to_bf16(IO::load(w[j])));
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
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run<decltype(io)>(a, m, n); });
}
