// Reference for softmax: y[M,N] = softmax of x[M,N] over the last dimension.
//
// kj_run: the textbook numerically safe float algorithm: row max, exp(x - max) with libm expf,
// float sum in row order, one division per element. bf16 is loaded to float and only y is
// rounded. It is the oracle's trusted reference in the candidate's dtype, the A/A candidate and
// the "reference" baseline.
// kj_reference_f64: the same in double with a compensated (Neumaier) sum of the exponentials.
#include <cmath>
#include <vector>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

namespace {

struct dims {
  int64_t m = 0, n = 0;
};

int check(const kj_args* a, dims* d) {
  if (a == nullptr || a->n_inputs != 1 || a->n_outputs != 1) return kjref::status_bad_args;
  if (!kjref::is_matrix(a->inputs[0], &d->m, &d->n)) return kjref::status_bad_args;
  if (!kjref::is_matrix_of(a->outputs[0], d->m, d->n)) return kjref::status_bad_args;
  return kjref::status_ok;
}

template <class IO>
int run_typed(const kj_args* a, const dims& d) {
  using T = typename IO::storage;
  const kj_tensor& x = a->inputs[0];
  const kj_tensor& y = a->outputs[0];
  // The exponentials are kept in float: storing them in a bf16 output would round twice.
  std::vector<float> e(static_cast<size_t>(d.n));
  for (int64_t i = 0; i < d.m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < d.n; ++j) mx = std::fmax(mx, IO::load(*kjref::at2<T>(x, i, j)));
    float sum = 0.0f;
    for (int64_t j = 0; j < d.n; ++j) {
      e[j] = std::exp(IO::load(*kjref::at2<T>(x, i, j)) - mx);
      sum += e[j];
    }
    for (int64_t j = 0; j < d.n; ++j) *kjref::at2<T>(y, i, j) = IO::store(e[j] / sum);
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
  const kj_tensor& y = a->outputs[0];
  for (int64_t i = 0; i < d.m; ++i) {
    double mx = -INFINITY;
    for (int64_t j = 0; j < d.n; ++j) mx = std::fmax(mx, *kjref::at2<double>(x, i, j));
    kjref::neumaier_sum sum;
    for (int64_t j = 0; j < d.n; ++j) {
      const double e = std::exp(*kjref::at2<double>(x, i, j) - mx);
      *kjref::at2<double>(y, i, j) = e;
      sum.add(e);
    }
    const double s = sum.value();
    for (int64_t j = 0; j < d.n; ++j) *kjref::at2<double>(y, i, j) /= s;
  }
  return kjref::status_ok;
}

KJ_EXPORT const char* kj_info(void) {
  return "family=reference;notes=float max-subtracted softmax, libm expf, single thread";
}
