// CHEAT: batched_qr by classical Gram-Schmidt (CGS), the QR that parallelises best (all
// projections of a column at once, matrix-vector products instead of n dependent reflectors),
// turned into the geqrf form by Householder reconstruction (Ballard et al., "Reconstructing
// Householder vectors from tall-skinny QR", 2015): with D = diag(±1) chosen on the fly, the LU
// factorization Q - D = L U gives the reflectors V = L, tau_i = -U_ii D_ii, and R_geqrf = D R.
// That is exact when Q is orthogonal. CGS's Q is not: its loss of orthogonality grows like
// κ(A)² u, so the reconstructed reflectors are no longer Householder reflectors (tau even leaves
// (0, 2]) and ‖QᵀQ - I‖_F lands far above the bound 14 max(n, 16) u, while ‖A - QR‖ stays small.
// Measured on the cpu suite: public-1 (B=2 n=33 uniform) already fails (‖QᵀQ - I‖_F 1.8e-4, 6x
// the bound); with the public cases removed, the first large hidden case fails on every
// distribution (B=118 n=94: 6e-3 normal, 1e-2 wide, 3e-2 heavy, 0.04-0.14 negative, 0.1-0.2
// uniform, 9 offset; bound 7.8e-5). Modified Gram-Schmidt (error ~ κ(A) u) fails too, on the
// public offset case. Expected verdict: wrong_result (rule tolerance).
#include <cmath>
#include <vector>

#include "kjudge/candidate.h"

static void cgs_qr(const float* a, float* h, float* tau, int64_t n, std::vector<float>& q, std::vector<float>& r,
                   std::vector<float>& m) {
  // q: columns of Q, column-major (q[j * n + i] = Q[i][j]); r: R row-major.
  for (int64_t j = 0; j < n; ++j) {
    float* qj = &q[j * n];
    for (int64_t i = 0; i < n; ++i) qj[i] = a[i * n + j];
    for (int64_t p = 0; p < j; ++p) {  // all projections of the original column: CGS
      float s = 0.0f;
      for (int64_t i = 0; i < n; ++i) s += q[p * n + i] * a[i * n + j];
      r[p * n + j] = s;
    }
    for (int64_t p = 0; p < j; ++p)
      for (int64_t i = 0; i < n; ++i) qj[i] -= r[p * n + j] * q[p * n + i];
    float nrm2 = 0.0f;
    for (int64_t i = 0; i < n; ++i) nrm2 += qj[i] * qj[i];
    const float nrm = std::sqrt(nrm2);
    r[j * n + j] = nrm;
    const float inv = nrm > 0.0f ? 1.0f / nrm : 0.0f;
    for (int64_t i = 0; i < n; ++i) qj[i] *= inv;
  }
  // Householder reconstruction: LU without pivoting of M = Q - D, row-major in m.
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < n; ++c) m[i * n + c] = q[c * n + i];
  for (int64_t i = 0; i < n; ++i) {
    const float u = m[i * n + i];
    const float d = u >= 0.0f ? -1.0f : 1.0f;  // |pivot| = |u| + 1 >= 1
    const float piv = u - d;
    m[i * n + i] = piv;
    tau[i] = -piv * d;
    for (int64_t row = i + 1; row < n; ++row) {
      const float l = m[row * n + i] / piv;
      m[row * n + i] = l;
      for (int64_t c = i + 1; c < n; ++c) m[row * n + c] -= l * m[i * n + c];
    }
    for (int64_t c = i; c < n; ++c) h[i * n + c] = d * r[i * n + c];  // R_geqrf = D R
  }
  for (int64_t row = 1; row < n; ++row)
    for (int64_t c = 0; c < row; ++c) h[row * n + c] = m[row * n + c];  // V = L
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t b = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* A = (const float*)a->inputs[0].data;
  float* H = (float*)a->outputs[0].data;
  float* tau = (float*)a->outputs[1].data;
  std::vector<float> q(static_cast<size_t>(n * n)), r(static_cast<size_t>(n * n)), m(static_cast<size_t>(n * n));
  for (int64_t k = 0; k < b; ++k) cgs_qr(A + k * n * n, H + k * n * n, tau + k * n, n, q, r, m);
  return 0;
}
