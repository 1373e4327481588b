// Reference for gelu_bias_residual: out[M,N] = gelu_erf(x[M,N] + bias[N]) + residual[M,N],
// gelu_erf(v) = 0.5 * v * (1 + erf(v / sqrt 2)).
//
// kj_run: the plain float computation PyTorch performs (x + bias, erff-based GELU, + residual, all
// in float; bf16 is loaded to float and only the output is rounded). It is the oracle's trusted
// reference in the candidate's dtype, the A/A candidate and the "reference" baseline, so it must
// stay the textbook algorithm: no approximations, no reassociation tricks.
// kj_reference_f64: the same math in double on float64 copies of the inputs. The GELU is written
// with erfc so that v * Phi(v) keeps full relative accuracy for negative v, where 1 + erf(.)
// cancels.
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

namespace {

struct dims {
  int64_t m = 0, n = 0;
};

int check(const kj_args* a, dims* d) {
  if (a == nullptr || a->n_inputs != 3 || a->n_outputs != 1) return kjref::status_bad_args;
  if (!kjref::is_matrix(a->inputs[0], &d->m, &d->n)) return kjref::status_bad_args;
  if (!kjref::is_vector_of(a->inputs[1], d->n) || !kjref::is_matrix_of(a->inputs[2], d->m, d->n) ||
      !kjref::is_matrix_of(a->outputs[0], d->m, d->n))
    return kjref::status_bad_args;
  return kjref::status_ok;
}

template <class IO>
int run_typed(const kj_args* a, const dims& d) {
  using T = typename IO::storage;
  const kj_tensor& x = a->inputs[0];
  const kj_tensor& bias = a->inputs[1];
  const kj_tensor& res = a->inputs[2];
  const kj_tensor& out = a->outputs[0];
  for (int64_t i = 0; i < d.m; ++i) {
    for (int64_t j = 0; j < d.n; ++j) {
      const float v = IO::load(*kjref::at2<T>(x, i, j)) + IO::load(*kjref::at1<T>(bias, j));
      const float g = 0.5f * v * (1.0f + std::erf(v * 0.707106781186547524f));
      *kjref::at2<T>(out, i, j) = IO::store(g + IO::load(*kjref::at2<T>(res, i, j)));
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
  const kj_tensor& bias = a->inputs[1];
  const kj_tensor& res = a->inputs[2];
  const kj_tensor& out = a->outputs[0];
  for (int64_t i = 0; i < d.m; ++i) {
    for (int64_t j = 0; j < d.n; ++j) {
      const double v = *kjref::at2<double>(x, i, j) + *kjref::at1<double>(bias, j);
      const double g = v * (0.5 * std::erfc(-v * 0.70710678118654752440));
      *kjref::at2<double>(out, i, j) = g + *kjref::at2<double>(res, i, j);
    }
  }
  return kjref::status_ok;
}

KJ_EXPORT const char* kj_info(void) {
  return "family=reference;notes=float erff GELU, one pass, single thread";
}
