// The O(n³) steps of the QR oracle (oracle/qr_check.cpp) on one n x n matrix, on Eigen's blocked
// Householder and matrix-product kernels. Matrices are n x n with leading dimension n:
//   hc   the candidate's H, column-major (R on and above the diagonal, the reflectors' v below it,
//        v(k) = 1 implicit: each v contiguous), tau its n coefficients (tau = 0: H_k = I);
//   a    the input A, row-major (as check_qr reads it);
//   q    Q = H_0 H_1 ... H_{n-1}, column-major;  g  the upper triangle of QᵀQ, column-major;
//   w    scratch for a product's columns (row-major, as a).
// Each step computes the columns [j0, j1) of its output and reads the others' inputs only, so
// that one matrix's work splits over threads by column blocks: the caller fixes the blocks
// (k_qr_block columns each) whatever the number of threads, so the result does not depend on it.
#pragma once

#include <cstddef>
#include <span>

namespace kjudge::detail {

// Columns per block: wide enough for the products to run at their blocked speed, narrow enough
// that a 4096 x 4096 matrix splits into 32 blocks.
inline constexpr std::size_t k_qr_block = 128;

struct qr_kernels {
  const char* isa;  // the instruction set it was compiled for: "x86-64-v4", "x86-64-v3", "baseline"
  // Q[:, j0:j1].
  void (*q_columns)(const double* hc, const double* tau, std::size_t n, double* q, std::size_t j0, std::size_t j1);
  // G[0:j1, j0:j1] on and above the diagonal, G = QᵀQ.
  void (*gram_columns)(const double* q, std::size_t n, double* g, std::size_t j0, std::size_t j1);
  // Σ over the columns [j0, j1) of ‖A(:, j) − (QR)(:, j)‖², R = the upper triangle of hc; uses w's columns [j0, j1).
  double (*residual_columns)(const double* a, const double* hc, const double* q, std::size_t n, double* w,
                             std::size_t j0, std::size_t j1);
  // col[j] = Σ_i |R(i, j) − (QᵀA)(i, j)| for j in [j0, j1); uses w's columns [j0, j1).
  void (*factor_columns)(const double* a, const double* hc, const double* q, std::size_t n, double* w, double* col,
                         std::size_t j0, std::size_t j1);
};

// One variant per instruction set (qr_kernels_*.cpp): Eigen picks its vector width when it is
// compiled, so each is compiled with its own -march (x86-64-v4: AVX-512; x86-64-v3: AVX2 + FMA;
// the baseline) and the check picks at run time.
// The variants this CPU runs, widest first; select_qr_kernels() is the first.
std::span<const qr_kernels* const> runnable_qr_kernels();
const qr_kernels& select_qr_kernels();

// The four measures of one matrix (oracle/qr_check.hpp).
struct qr_measures {
  double backward = 0.0;       // ‖A − QR‖_F / ‖A‖_F (‖QR‖_F where A = 0)
  double orthogonality = 0.0;  // ‖QᵀQ − I‖_F
  double factor_l1 = 0.0;      // ‖R − QᵀA‖_1 / ‖A‖_1 (qr_v2's factor residual)
  double orth_l1 = 0.0;        // ‖QᵀQ − I‖_1
};

// The measures of one n x n matrix: a and h row-major (as check_qr reads them), tau[n], with
// `kernels`' steps split over `threads` threads (defined in qr_check.cpp).
qr_measures measure_qr_matrix(const qr_kernels& kernels, const double* a, const double* h, const double* tau,
                              std::size_t n, unsigned threads);

}  // namespace kjudge::detail
