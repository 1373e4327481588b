// The QR oracle (DESIGN.md §3, spec key check = "qr"): a backward-error check of a batched
// Householder QR in torch.geqrf / LAPACK xGEQRF form instead of an elementwise comparison.
//
// Why not elementwise: the factors of a QR are unique only up to the signs of R's rows (and the
// matching reflectors), and where A is ill-conditioned the trailing Householder vectors are
// themselves ill-conditioned functions of A: two backward-stable f32 factorizations (another
// summation order, a blocked update) differ from each other and from the float64 reference by
// far more than any elementwise tolerance, while both are exact QRs of matrices within a few ulps
// of A. What a user of a QR needs is exactly that: Q orthogonal and QR = A + small. So the oracle
// rebuilds Q and R from the candidate's compact output, in double, and checks per matrix
//   backward error      ‖A − QR‖_F / ‖A‖_F   ≤ c · max(n, 16) · u
//   orthogonality       ‖QᵀQ − I‖_F          ≤ c · max(n, 16) · u
// with u the unit roundoff of the candidate's dtype (2^-24 for f32) and c = qr_check_c (the
// measurement that sets it is in qr_check.cpp). LAPACK's own test suite checks the same two
// ratios (xQRT01: ‖R − QᵀA‖ / (m ‖A‖ eps) and ‖I − QᵀQ‖ / (m eps), threshold 30).
// and, per matrix, GPU MODE qr_v2's two gates (its reference.py), in the L1 (max column sum) norm:
//   factor residual     ‖R − QᵀA‖_1 / ‖A‖_1  ≤ 20 · n · eps
//   orthogonality       ‖QᵀQ − I‖_1          ≤ 100 · n · eps
// with eps = 2u (the dtype's machine epsilon, 2^-23 for f32). Neither pair implies the other for
// every n (‖X‖_1 ≤ √n ‖X‖_F and ‖X‖_F ≤ √n ‖X‖_1): the L1 orthogonality is the stricter where
// n > 204 and Q's error concentrates in a few columns, so a matrix must pass all four.
// Any valid QR passes, whatever the signs of R's diagonal.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/tensor.hpp"
#include "oracle/oracle.hpp"

namespace kjudge {

// The bound is c · max(n, n_floor) · u. c: see qr_check.cpp for the measurement behind it.
// n_floor: below 16 columns the fixed rounding of a single reflector (the square root, the
// division, tau) is larger than the per-column growth n · u describes (the f32 reference's
// ‖QᵀQ − I‖_F is 9 u at n = 2, 15 u at n = 8, 19 u at n = 17).
inline constexpr double qr_check_c = 14.0;
inline constexpr std::int64_t qr_check_n_floor = 16;

// qr_v2's L1 gates: c · max(n, 1) · eps, eps = 2 · unit_roundoff(t).
inline constexpr double qr_l1_factor_c = 20.0;
inline constexpr double qr_l1_orth_c = 100.0;
double qr_l1_bound(std::int64_t n, dtype t, double c);

// Unit roundoff of a floating dtype: 2^-24 (f32), 2^-53 (f64), 2^-8 (bf16), 2^-11 (f16).
double unit_roundoff(dtype t);

// The bound c · max(n, qr_check_n_floor) · u for n x n matrices in dtype t.
double qr_bound(std::int64_t n, dtype t, double c = qr_check_c);

struct qr_check_result {
  // Compatible with the elementwise oracle's report (judge/detail/checks.cpp's case entries):
  //   pass, reason, output_name ("H" or "tau": the output the first failure is in);
  //   max_abs_err  = the largest ‖QᵀQ − I‖_F over the matrices;
  //   max_rel_err  = the largest ‖A − QR‖_F / ‖A‖_F over the matrices;
  //   norm_rel_err = the largest of the two (what the bound is compared with), norm_allowed = bound;
  //   n_bad        = matrices outside a bound, the L1 gates' included (tau out of range too);
  //   n_unwritten, n_nan_mismatch: elements of H and tau, as in compare_output;
  //   worst        = the worst matrix: index = its batch index, coords = {b}, out = its larger
  //                  error, ref = 0, ref_same = 0, abs_err = out, rel_err = the largest
  //                  ratio of its four errors (the two above, the L1 gates) to their bounds,
  //                  allowed = bound.
  compare_result cmp;
  double max_backward = 0.0;       // max_b ‖A_b − Q_b R_b‖_F / ‖A_b‖_F
  double max_orthogonality = 0.0;  // max_b ‖Q_bᵀQ_b − I‖_F
  double bound = 0.0;              // c · max(n, 16) · u
  double max_factor_l1 = 0.0;      // max_b ‖R_b − Q_bᵀA_b‖_1 / ‖A_b‖_1
  double max_orth_l1 = 0.0;        // max_b ‖Q_bᵀQ_b − I‖_1
  double factor_l1_bound = 0.0;    // 20 · n · eps
  double orth_l1_bound = 0.0;      // 100 · n · eps
  std::size_t worst_matrix = 0;    // b with the largest max(backward, orthogonality) / bound
  std::size_t n_matrices = 0;
  std::size_t n_skipped = 0;  // matrices of A with non-finite entries (nothing to check)
};

// A[B, n, n] (the generated input, any float dtype; read as double), H[B, n, n] and tau[B, n]
// (the candidate's outputs, in its dtype). `t` is the dtype whose unit roundoff sets the bound
// (the variant under evaluation). Poison left in H or tau is unwritten output; NaN/Inf in H or tau
// of a matrix whose A is finite is a non-finite mismatch; |tau| > 2 (no Householder reflector has
// it) fails like an error outside the bound. `threads` = 0: one per hardware thread (at most 16).
// Throws std::invalid_argument when the shapes do not fit together.
qr_check_result check_qr(const host_tensor& A, const host_tensor& H, const host_tensor& tau, dtype t,
                         double c = qr_check_c, unsigned threads = 0);

}  // namespace kjudge
