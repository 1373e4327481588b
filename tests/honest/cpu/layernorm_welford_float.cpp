// Honest (layernorm): Welford's one-pass running mean and M2 per row with float accumulators, as
// a GPU kernel keeps them in registers, then the normalisation pass in float. f32 and bf16. Its
// row statistics round differently from the reference's two-pass sums (and by more on offset
// rows), which the oracle's typical-row envelope must admit.
// Expected: ok, no rule.
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = static_cast<const T*>(a->inputs[0].data);
  const T* w = static_cast<const T*>(a->inputs[1].data);
  const T* b = static_cast<const T*>(a->inputs[2].data);
  T* y = static_cast<T*>(a->outputs[0].data);
  const float eps = static_cast<float>(kjref::scalar_or(a, 0, 1e-5));
  for (int64_t i = 0; i < m; ++i) {
    const T* xr = x + i * n;
    float mean = 0.0f, m2 = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      const float v = IO::load(xr[j]);
      const float d = v - mean;
      mean += d / static_cast<float>(j + 1);
      m2 += d * (v - mean);
    }
    const float rstd = 1.0f / std::sqrt(m2 / static_cast<float>(n) + eps);
    for (int64_t j = 0; j < n; ++j)
      y[i * n + j] = IO::store((IO::load(xr[j]) - mean) * rstd * IO::load(w[j]) + IO::load(b[j]));
  }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) || !kjref::all_contiguous(a))
    return kjref::status_bad_args;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype, [&](auto io) { return run<decltype(io)>(a, m, n); });
}

KJ_EXPORT const char* kj_info(void) { return "family=welford-float;notes=one pass, float accumulators"; }
