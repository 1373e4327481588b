// Reference for matmul_bias_relu: c[M,N] = relu(a[M,K] @ b[K,N] + bias[N]).
//
// kj_run: the straightforward float algorithm: each output accumulates its K products in float,
// in k order (i-k-j loops so the inner loop runs over contiguous rows of b), then adds the bias
// and applies relu (NaN propagates, as torch.relu does). bf16 inputs are loaded to float and only
// c is rounded. It is the oracle's trusted reference in the candidate's dtype, the A/A candidate
// and the "reference" baseline.
// kj_reference_f64: the same loops in double with compensated dot products (Ogita-Rump-Oishi
// Dot2: TwoProduct by FMA, TwoSum per term), i.e. as accurate as summing in twice double
// precision, so the reference is trustworthy even where a @ b cancels (wide-range data).
#include <cmath>
#include <vector>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

namespace {

struct dims {
  int64_t m = 0, k = 0, n = 0;
};

int check(const kj_args* a, dims* d) {
  if (a == nullptr || a->n_inputs != 3 || a->n_outputs != 1) return kjref::status_bad_args;
  int64_t k2 = 0;
  if (!kjref::is_matrix(a->inputs[0], &d->m, &d->k) || !kjref::is_matrix(a->inputs[1], &k2, &d->n))
    return kjref::status_bad_args;
  if (k2 != d->k || !kjref::is_vector_of(a->inputs[2], d->n) ||
      !kjref::is_matrix_of(a->outputs[0], d->m, d->n))
    return kjref::status_bad_args;
  return kjref::status_ok;
}

template <class IO>
int run_typed(const kj_args* a, const dims& d) {
  using T = typename IO::storage;
  const kj_tensor& A = a->inputs[0];
  const kj_tensor& B = a->inputs[1];
  const kj_tensor& bias = a->inputs[2];
  const kj_tensor& C = a->outputs[0];
  std::vector<float> acc(static_cast<size_t>(d.n));
  for (int64_t i = 0; i < d.m; ++i) {
    for (int64_t j = 0; j < d.n; ++j) acc[j] = 0.0f;
    for (int64_t p = 0; p < d.k; ++p) {
      const float aip = IO::load(*kjref::at2<T>(A, i, p));
      for (int64_t j = 0; j < d.n; ++j) acc[j] += aip * IO::load(*kjref::at2<T>(B, p, j));
    }
    for (int64_t j = 0; j < d.n; ++j) {
      const float v = acc[j] + IO::load(*kjref::at1<T>(bias, j));
      *kjref::at2<T>(C, i, j) = IO::store(v < 0.0f ? 0.0f : v);
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
  const kj_tensor& A = a->inputs[0];
  const kj_tensor& B = a->inputs[1];
  const kj_tensor& bias = a->inputs[2];
  const kj_tensor& C = a->outputs[0];
  // Per output element: s is the running double sum, c collects every rounding error exactly
  // (up to the final, negligible rounding of c itself).
  std::vector<double> s(static_cast<size_t>(d.n)), c(static_cast<size_t>(d.n));
  for (int64_t i = 0; i < d.m; ++i) {
    for (int64_t j = 0; j < d.n; ++j) s[j] = c[j] = 0.0;
    for (int64_t p = 0; p < d.k; ++p) {
      const double aip = *kjref::at2<double>(A, i, p);
      for (int64_t j = 0; j < d.n; ++j) {
        double prod, prod_err, sum, sum_err;
        kjref::two_prod(aip, *kjref::at2<double>(B, p, j), &prod, &prod_err);
        kjref::two_sum(s[j], prod, &sum, &sum_err);
        s[j] = sum;
        c[j] += prod_err + sum_err;
      }
    }
    for (int64_t j = 0; j < d.n; ++j) {
      double sum, sum_err;
      kjref::two_sum(s[j], *kjref::at1<double>(bias, j), &sum, &sum_err);
      const double v = sum + (sum_err + c[j]);
      *kjref::at2<double>(C, i, j) = v < 0.0 ? 0.0 : v;
    }
  }
  return kjref::status_ok;
}

KJ_EXPORT const char* kj_info(void) {
  return "family=reference;notes=float i-k-j loops, k-ordered accumulation, single thread";
}
