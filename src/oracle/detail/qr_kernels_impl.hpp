// The QR oracle's O(n³) steps (qr_kernels.hpp) on Eigen, for one instruction set: included once
// by each qr_kernels_ISA.cpp, which defines KJ_QR_ISA (the variant's name) first and is compiled
// with that instruction set's -march (CMakeLists.txt).
//
// Each variant renames Eigen's namespace (kj_eigen_ISA): Eigen is header-only, and the same
// template compiled with AVX-512 in one file and without it in another would otherwise be one
// symbol, of which the linker keeps either copy. Nothing else here has external linkage but
// the variant's table.
#pragma once

#ifndef KJ_QR_ISA
#error "define KJ_QR_ISA (the variant's name) before including qr_kernels_impl.hpp"
#endif

#define KJ_QR_CAT2(a, b) a##b
#define KJ_QR_CAT(a, b) KJ_QR_CAT2(a, b)
#define Eigen KJ_QR_CAT(kj_eigen_, KJ_QR_ISA)
#define EIGEN_DONT_PARALLELIZE  // the oracle's own threads split the work (qr_check.cpp)

#include <Eigen/Core>
#include <Eigen/Householder>
#include <cmath>
#include <cstddef>

#include "oracle/detail/qr_kernels.hpp"

namespace kjudge::detail {
namespace {

using index = Eigen::Index;
using matrix_map = Eigen::Map<Eigen::MatrixXd>;
using const_matrix_map = Eigen::Map<const Eigen::MatrixXd>;
using row_major = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using row_major_map = Eigen::Map<row_major>;
using const_row_major_map = Eigen::Map<const row_major>;
using const_vector_map = Eigen::Map<const Eigen::VectorXd>;

index as_index(std::size_t x) {
  return static_cast<index>(x);
}

// Q[:, j0:j1] = H_0 ... H_{n-1} E, E = the identity's columns [j0, j1). The reflectors after j1
// leave E as it is (H_k acts on rows k and below); H_j0 ... H_{j1-1} act on rows j0 and below
// only, where E is [I; 0]; then H_0 ... H_{j0-1} act on the whole block. About 4 n j0 (j1 - j0)
// flops: summed over the blocks, LAPACK xORGQR's (4/3) n³.
void q_columns(const double* hc, const double* tau, std::size_t n, double* q, std::size_t j0, std::size_t j1) {
  const index nn = as_index(n), c0 = as_index(j0), w = as_index(j1 - j0);
  const const_matrix_map hm(hc, nn, nn);
  const const_vector_map t(tau, nn);
  matrix_map qm(q, nn, nn);
  auto block = qm.middleCols(c0, w);
  block.setZero();
  block.middleRows(c0, w).setIdentity();
  auto below = block.bottomRows(nn - c0);
  Eigen::householderSequence(hm.block(c0, c0, nn - c0, w), t.segment(c0, w)).applyThisOnTheLeft(below);
  if (c0 > 0) Eigen::householderSequence(hm.leftCols(c0), t.head(c0)).applyThisOnTheLeft(block);
}

void gram_columns(const double* q, std::size_t n, double* g, std::size_t j0, std::size_t j1) {
  const index nn = as_index(n), c0 = as_index(j0), w = as_index(j1 - j0);
  const const_matrix_map qm(q, nn, nn);
  matrix_map gm(g, nn, nn);
  const auto qj = qm.middleCols(c0, w);
  if (c0 > 0) gm.block(0, c0, c0, w).noalias() = qm.leftCols(c0).transpose() * qj;
  gm.block(c0, c0, w, w).triangularView<Eigen::Upper>() = qj.transpose() * qj;
}

double residual_columns(const double* a, const double* hc, const double* q, std::size_t n, double* w, std::size_t j0,
                        std::size_t j1) {
  const index nn = as_index(n), c0 = as_index(j0), cw = as_index(j1 - j0);
  const const_matrix_map hm(hc, nn, nn);
  const const_matrix_map qm(q, nn, nn);
  row_major_map wm(w, nn, nn);
  auto qr = wm.middleCols(c0, cw);
  // (QR)(:, j) = Σ_{p ≤ j} Q(:, p) R(p, j): the block's own triangle, then the rows above it.
  qr.noalias() = qm.middleCols(c0, cw) * hm.block(c0, c0, cw, cw).triangularView<Eigen::Upper>();
  if (c0 > 0) qr.noalias() += qm.leftCols(c0) * hm.block(0, c0, c0, cw);
  // In a fixed order (Eigen's reductions order by the data's alignment).
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = j0; j < j1; ++j) {
      const double d = a[i * n + j] - w[i * n + j];
      sum += d * d;
    }
  return sum;
}

void factor_columns(const double* a, const double* hc, const double* q, std::size_t n, double* w, double* col,
                    std::size_t j0, std::size_t j1) {
  const index nn = as_index(n), c0 = as_index(j0), cw = as_index(j1 - j0);
  const const_row_major_map am(a, nn, nn);
  const const_matrix_map qm(q, nn, nn);
  row_major_map wm(w, nn, nn);
  wm.middleCols(c0, cw).noalias() = qm.transpose() * am.middleCols(c0, cw);  // QᵀA
  for (std::size_t j = j0; j < j1; ++j) col[j] = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = j0; j < j1; ++j) col[j] += std::fabs((j >= i ? hc[j * n + i] : 0.0) - w[i * n + j]);
}

}  // namespace

extern const qr_kernels KJ_QR_CAT(qr_kernels_, KJ_QR_ISA);
const qr_kernels KJ_QR_CAT(qr_kernels_, KJ_QR_ISA) = {KJ_QR_ISA_NAME, q_columns, gram_columns, residual_columns,
                                                      factor_columns};

}  // namespace kjudge::detail

#undef Eigen
