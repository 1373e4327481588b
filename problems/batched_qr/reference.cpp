// Reference for batched_qr: the Householder QR of every A[b] (A[B,n,n], row-major), in the
// compact form of torch.geqrf / LAPACK xGEQRF: H[b] holds R on and above the diagonal and the
// Householder vectors below it (v_k(k) = 1 implied, v_k(i) = H[b][i][k] for i > k), tau[b][k] the
// coefficients, so that A[b] = H_1 ... H_n R with H_k = I - tau_k v_k v_kᵀ.
//
// Both entry points run LAPACK's unblocked xGEQR2 order. Per column k, as xLARFG does:
// alpha = A[k][k], x = A[k+1:, k]; if x = 0 then tau = 0 (H_k = I, even for a negative alpha);
// else beta = -sign(alpha) * sqrt(alpha² + ‖x‖²), tau = (beta - alpha) / beta, v = x / (alpha - beta)
// (no cancellation: alpha and -beta have the same sign), R[k][k] = beta; then H_k is applied to
// the trailing columns as w = v_kᵀ C, C -= tau v_k w (xLARF), row by row so the loops run along
// contiguous rows. xLARFG's rescaling for a tiny beta (below safmin / eps) is left out: the
// suite's distributions never come near it.
//
// kj_run: in float (f32 only: the problem's one variant), f32 accumulation. It is the A/A
// candidate and the "reference" baseline; the oracle does not compare with it elementwise (the QR
// oracle is a backward-error check, src/oracle/qr_check.hpp).
// kj_reference_f64: the same in double.
#include <cmath>
#include <vector>

#include "kjudge/candidate.h"
#include "qr_args.h"
#include "kjudge/reference_util.h"

namespace {

using qr_args::check;
using qr_args::dims;

// One n x n matrix in place: h holds A on entry, the compact QR on return. w: n scratch.
template <class T>
void geqr2(T* __restrict__ h, T* __restrict__ tau, int64_t n, T* __restrict__ w) {
  for (int64_t k = 0; k < n; ++k) {
    T xnorm2 = 0;
    for (int64_t i = k + 1; i < n; ++i) xnorm2 += h[i * n + k] * h[i * n + k];
    if (xnorm2 == T(0)) {
      tau[k] = 0;
      continue;
    }
    const T alpha = h[k * n + k];
    const T norm = std::sqrt(alpha * alpha + xnorm2);
    const T beta = alpha >= T(0) ? -norm : norm;
    const T t = (beta - alpha) / beta;
    const T scale = T(1) / (alpha - beta);
    for (int64_t i = k + 1; i < n; ++i) h[i * n + k] *= scale;
    h[k * n + k] = beta;
    tau[k] = t;
    // w = v_kᵀ C over the trailing columns j > k (v_k(k) = 1), then C -= tau v_k w.
    for (int64_t j = k + 1; j < n; ++j) w[j] = h[k * n + j];
    for (int64_t i = k + 1; i < n; ++i) {
      const T vi = h[i * n + k];
      const T* hi = h + i * n;
      for (int64_t j = k + 1; j < n; ++j) w[j] += vi * hi[j];
    }
    for (int64_t j = k + 1; j < n; ++j) h[k * n + j] -= t * w[j];
    for (int64_t i = k + 1; i < n; ++i) {
      const T c = t * h[i * n + k];
      T* hi = h + i * n;
      for (int64_t j = k + 1; j < n; ++j) hi[j] -= c * w[j];
    }
  }
}

template <class T>
int run_typed(const kj_args* a, const dims& d) {
  const T* A = static_cast<const T*>(a->inputs[0].data);
  T* H = static_cast<T*>(a->outputs[0].data);
  T* tau = static_cast<T*>(a->outputs[1].data);
  const int64_t nn = d.n * d.n;
  std::vector<T> w(static_cast<size_t>(d.n));
  for (int64_t b = 0; b < d.b; ++b) {
    for (int64_t e = 0; e < nn; ++e) H[b * nn + e] = A[b * nn + e];
    geqr2<T>(H + b * nn, tau + b * d.n, d.n, w.data());
  }
  return kjref::status_ok;
}

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  dims d;
  if (int s = check(a, &d)) return s;
  if (!kjref::same_dtype(a, KJ_F32)) return kjref::status_bad_dtype;
  return run_typed<float>(a, d);
}

KJ_EXPORT int kj_reference_f64(const kj_args* a) {
  dims d;
  if (int s = check(a, &d)) return s;
  if (!kjref::same_dtype(a, KJ_F64)) return kjref::status_bad_dtype;
  return run_typed<double>(a, d);
}

KJ_EXPORT const char* kj_info(void) {
  return "family=reference;notes=unblocked Householder QR (LAPACK xGEQR2 order), float accumulation, single thread";
}
