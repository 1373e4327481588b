// Honest (layernorm): Welford's one-pass running mean and M2 per row, accumulated in double on
// data shifted by the row's first element (the "shifted data" form), then the normalisation pass
// in float. f32 and bf16. (layernorm_welford_float.cpp keeps float accumulators.)
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
  const double eps = kjref::scalar_or(a, 0, 1e-5);
  for (int64_t i = 0; i < m; ++i) {
    const T* xr = x + i * n;
    const double shift = IO::load(xr[0]);
    double mean = 0.0, m2 = 0.0;  // of x - shift
    for (int64_t j = 0; j < n; ++j) {
      const double v = IO::load(xr[j]) - shift;
      const double d = v - mean;
      mean += d / static_cast<double>(j + 1);
      m2 += d * (v - mean);
    }
    const float mu = static_cast<float>(shift + mean);
    const float rstd = static_cast<float>(1.0 / std::sqrt(m2 / static_cast<double>(n) + eps));
    for (int64_t j = 0; j < n; ++j)
      y[i * n + j] = IO::store((IO::load(xr[j]) - mu) * rstd * IO::load(w[j]) + IO::load(b[j]));
  }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) || !kjref::all_contiguous(a))
    return kjref::status_bad_args;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype, [&](auto io) { return run<decltype(io)>(a, m, n); });
}
