// Reference for rmsnorm: y[M,N] = x * rsqrt(mean(x^2) + eps) * weight[N] per row,
// eps = scalars[0] (1e-6 when absent).
//
// kj_run: the plain float algorithm (sum of squares accumulated in float in row order, one
// reciprocal square root per row). bf16 is loaded to float and only y is rounded. It is the
// oracle's trusted reference in the candidate's dtype, the A/A candidate and the "reference"
// baseline.
// kj_reference_f64: the same in double with a compensated (Neumaier) sum of squares.
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

namespace {

constexpr double default_eps = 1e-6;

struct dims {
  int64_t m = 0, n = 0;
};

int check(const kj_args* a, dims* d) {
  if (a == nullptr || a->n_inputs != 2 || a->n_outputs != 1) return kjref::status_bad_args;
  if (!kjref::is_matrix(a->inputs[0], &d->m, &d->n)) return kjref::status_bad_args;
  if (!kjref::is_vector_of(a->inputs[1], d->n) || !kjref::is_matrix_of(a->outputs[0], d->m, d->n))
    return kjref::status_bad_args;
  return kjref::status_ok;
}

template <class IO>
int run_typed(const kj_args* a, const dims& d) {
  using T = typename IO::storage;
  const kj_tensor& x = a->inputs[0];
  const kj_tensor& w = a->inputs[1];
  const kj_tensor& y = a->outputs[0];
  const float eps = static_cast<float>(kjref::scalar_or(a, 0, default_eps));
  const float inv_n = 1.0f / static_cast<float>(d.n);
  for (int64_t i = 0; i < d.m; ++i) {
    float sq = 0.0f;
    for (int64_t j = 0; j < d.n; ++j) {
      const float v = IO::load(*kjref::at2<T>(x, i, j));
      sq += v * v;
    }
    const float r = 1.0f / std::sqrt(sq * inv_n + eps);
    for (int64_t j = 0; j < d.n; ++j) {
      const float v = IO::load(*kjref::at2<T>(x, i, j));
      *kjref::at2<T>(y, i, j) = IO::store(v * r * IO::load(*kjref::at1<T>(w, j)));
    }
  }
  return kjref::status_ok;
}

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  dims d;
  if (int s = check(a, &d)) return s;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return kjref::status_bad_dtype;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run_typed<decltype(io)>(a, d); });
}

KJ_EXPORT int kj_reference_f64(const kj_args* a) {
  dims d;
  if (int s = check(a, &d)) return s;
  if (!kjref::same_dtype(a, KJ_F64)) return kjref::status_bad_dtype;
  const kj_tensor& x = a->inputs[0];
  const kj_tensor& w = a->inputs[1];
  const kj_tensor& y = a->outputs[0];
  const double eps = kjref::scalar_or(a, 0, default_eps);
  for (int64_t i = 0; i < d.m; ++i) {
    kjref::neumaier_sum sq;
    for (int64_t j = 0; j < d.n; ++j) {
      const double v = *kjref::at2<double>(x, i, j);
      sq.add(v * v);
    }
    const double r = 1.0 / std::sqrt(sq.value() / static_cast<double>(d.n) + eps);
    for (int64_t j = 0; j < d.n; ++j)
      *kjref::at2<double>(y, i, j) = *kjref::at2<double>(x, i, j) * r * *kjref::at1<double>(w, j);
  }
  return kjref::status_ok;
}

KJ_EXPORT const char* kj_info(void) {
  return "family=reference;notes=float sum of squares, single thread";
}
