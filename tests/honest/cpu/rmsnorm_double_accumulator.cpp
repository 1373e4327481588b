// Honest (rmsnorm): the sum of squares accumulated in double (more accurate than the reference's
// float sum), the scale rounded to float once per row. f32 and bf16.
// Expected: ok, no rule.
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = static_cast<const T*>(a->inputs[0].data);
  const T* w = static_cast<const T*>(a->inputs[1].data);
  T* y = static_cast<T*>(a->outputs[0].data);
  const double eps = kjref::scalar_or(a, 0, 1e-6);
  for (int64_t i = 0; i < m; ++i) {
    double sq = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      const double v = IO::load(x[i * n + j]);
      sq += v * v;
    }
    const float r = static_cast<float>(1.0 / std::sqrt(sq / static_cast<double>(n) + eps));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = IO::store(IO::load(x[i * n + j]) * r * IO::load(w[j]));
  }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 2 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) || !kjref::all_contiguous(a))
    return kjref::status_bad_args;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype, [&](auto io) { return run<decltype(io)>(a, m, n); });
}
