// The QR oracle's blocked Eigen kernels (src/oracle/detail/qr_kernels.hpp) against a plain
// computation of the same four measures in double: Q built reflector by reflector (xORG2R's
// order), then the products as triple loops. Every instruction-set variant this CPU runs, one
// matrix's work split over threads, tau = 0 reflectors (whose stored v is not part of the
// factorization), and check_qr's batches with fewer and more matrices than threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "inputs/distributions.hpp"
#include "oracle/detail/qr_kernels.hpp"
#include "oracle/qr_check.hpp"

namespace kjudge {
namespace {

using detail::qr_measures;

// One n x n matrix and its factors in geqrf form, all row-major in double.
struct factored {
  std::size_t n = 0;
  std::vector<double> a, h, tau;
};

// Householder QR in float arithmetic (LAPACK xGEQR2's reflectors: tau = 0 where the subcolumn is
// zero), so that the measures are of an f32 candidate's size (1e-8 ... 1e-5).
factored factor_in_f32(std::vector<double> a, std::size_t n) {
  factored f{n, a, {}, std::vector<double>(n)};
  std::vector<float> h(a.begin(), a.end());
  for (std::size_t k = 0; k < n; ++k) {
    float x2 = 0.0F;
    for (std::size_t i = k + 1; i < n; ++i) x2 += h[i * n + k] * h[i * n + k];
    const float alpha = h[k * n + k];
    if (x2 == 0.0F) continue;  // tau = 0: H_k = I
    const float norm = std::sqrt(alpha * alpha + x2);
    const float beta = alpha >= 0.0F ? -norm : norm;
    const float tau = (beta - alpha) / beta;
    for (std::size_t i = k + 1; i < n; ++i) h[i * n + k] /= alpha - beta;
    h[k * n + k] = beta;
    for (std::size_t j = k + 1; j < n; ++j) {
      float w = h[k * n + j];
      for (std::size_t i = k + 1; i < n; ++i) w += h[i * n + k] * h[i * n + j];
      h[k * n + j] -= tau * w;
      for (std::size_t i = k + 1; i < n; ++i) h[i * n + j] -= tau * w * h[i * n + k];
    }
    f.tau[k] = tau;
  }
  f.h.assign(h.begin(), h.end());
  return f;
}

std::vector<double> random_matrix(std::size_t n, const char* dist, std::uint64_t seed) {
  host_tensor t(tensor_desc{"A", dtype::f32, {1, static_cast<std::int64_t>(n), static_cast<std::int64_t>(n)}});
  fill_distribution(t, dist, seed, 0);
  std::vector<double> a(n * n);
  for (std::size_t e = 0; e < n * n; ++e) a[e] = t.get(e);
  return a;
}

// The four measures the plain way.
qr_measures plain_measures(const factored& f) {
  const std::size_t n = f.n;
  auto at = [n](const std::vector<double>& m, std::size_t i, std::size_t j) { return m[i * n + j]; };
  std::vector<double> q(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) q[i * n + i] = 1.0;
  for (std::size_t k = n; k-- > 0;) {
    if (f.tau[k] == 0.0) continue;
    for (std::size_t j = 0; j < n; ++j) {
      double s = q[k * n + j];
      for (std::size_t i = k + 1; i < n; ++i) s += at(f.h, i, k) * q[i * n + j];
      q[k * n + j] -= f.tau[k] * s;
      for (std::size_t i = k + 1; i < n; ++i) q[i * n + j] -= f.tau[k] * at(f.h, i, k) * s;
    }
  }
  auto r = [&](std::size_t i, std::size_t j) { return j >= i ? at(f.h, i, j) : 0.0; };
  double res2 = 0, a2 = 0, orth2 = 0, a1 = 0, f1 = 0, o1 = 0;
  for (std::size_t j = 0; j < n; ++j) {
    double acol = 0, fcol = 0, ocol = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double qr = 0, qtq = 0, qta = 0;
      for (std::size_t p = 0; p < n; ++p) {
        qr += at(q, i, p) * r(p, j);
        qtq += at(q, p, i) * at(q, p, j);
        qta += at(q, p, i) * at(f.a, p, j);
      }
      const double e = at(f.a, i, j) - qr, g = qtq - (i == j ? 1.0 : 0.0);
      res2 += e * e;
      a2 += at(f.a, i, j) * at(f.a, i, j);
      orth2 += g * g;
      acol += std::fabs(at(f.a, i, j));
      fcol += std::fabs(r(i, j) - qta);
      ocol += std::fabs(g);
    }
    a1 = std::max(a1, acol);
    f1 = std::max(f1, fcol);
    o1 = std::max(o1, ocol);
  }
  return {std::sqrt(res2 / a2), std::sqrt(orth2), f1 / a1, o1};
}

void expect_close(const qr_measures& got, const qr_measures& want, const std::string& where) {
  // Both in double: they differ by the products' rounding, ~n ulps of terms of size 1.
  auto near = [](double x, double y) { return std::fabs(x - y) <= 1e-6 * std::fabs(y) + 1e-13; };
  EXPECT_TRUE(near(got.backward, want.backward)) << where << ": backward " << got.backward << " vs " << want.backward;
  EXPECT_TRUE(near(got.orthogonality, want.orthogonality))
      << where << ": orthogonality " << got.orthogonality << " vs " << want.orthogonality;
  EXPECT_TRUE(near(got.factor_l1, want.factor_l1))
      << where << ": factor_l1 " << got.factor_l1 << " vs " << want.factor_l1;
  EXPECT_TRUE(near(got.orth_l1, want.orth_l1)) << where << ": orth_l1 " << got.orth_l1 << " vs " << want.orth_l1;
}

// Matrices of each size: a dense one, one whose every other column is zero below the diagonal
// (tau = 0 there) with garbage left in the stored v that the factorization does not use, and a
// dense one with some tau zeroed (no longer a QR of A: measures of order 1).
std::vector<factored> cases(std::size_t n, std::uint64_t seed) {
  std::vector<factored> out;
  out.push_back(factor_in_f32(random_matrix(n, "normal", seed), n));
  std::vector<double> sparse = random_matrix(n, "uniform", seed + 1);
  for (std::size_t k = 0; k < n; k += 2)
    for (std::size_t i = k + 1; i < n; ++i) sparse[i * n + k] = 0.0;
  factored s = factor_in_f32(sparse, n);
  for (std::size_t k = 0; k < n; ++k)
    if (s.tau[k] == 0.0)
      for (std::size_t i = k + 1; i < n; ++i) s.h[i * n + k] = 123.0 + static_cast<double>(i);
  out.push_back(s);
  factored z = factor_in_f32(random_matrix(n, "wide", seed + 2), n);
  for (std::size_t k = 0; k < n; k += 3) z.tau[k] = 0.0;
  out.push_back(z);
  return out;
}

const std::vector<std::size_t> k_sizes{1, 2, 3, 17, 64, 200, 257, 300};

TEST(QrCheckKernels, EveryVariantMatchesThePlainComputation) {
  for (const std::size_t n : k_sizes) {
    const std::vector<factored> cs = cases(n, 100 + n);
    for (std::size_t c = 0; c < cs.size(); ++c) {
      const factored& f = cs[c];
      const qr_measures want = plain_measures(f);
      for (const detail::qr_kernels* k : detail::runnable_qr_kernels())
        for (const unsigned threads : {1U, 3U}) {
          const std::string where = std::string(k->isa) + " n=" + std::to_string(n) + " case " + std::to_string(c) +
                                    " threads=" + std::to_string(threads);
          const qr_measures got = detail::measure_qr_matrix(*k, f.a.data(), f.h.data(), f.tau.data(), n, threads);
          expect_close(got, want, where);
        }
    }
  }
}

// Splitting a matrix's blocks over threads changes nothing, not even the rounding: the blocks
// are fixed by n (the last one a single column at n = 257).
TEST(QrCheckKernels, BlocksOverThreadsGiveTheSameBits) {
  for (const std::size_t n : {257UL, 300UL}) {
    const factored f = factor_in_f32(random_matrix(n, "heavy", 7 + n), n);
    for (const detail::qr_kernels* k : detail::runnable_qr_kernels()) {
      const qr_measures one = detail::measure_qr_matrix(*k, f.a.data(), f.h.data(), f.tau.data(), n, 1);
      for (const unsigned threads : {2U, 3U, 16U}) {
        const qr_measures many = detail::measure_qr_matrix(*k, f.a.data(), f.h.data(), f.tau.data(), n, threads);
        EXPECT_EQ(one.backward, many.backward) << k->isa << " n=" << n << " threads=" << threads;
        EXPECT_EQ(one.orthogonality, many.orthogonality) << k->isa << " n=" << n << " threads=" << threads;
        EXPECT_EQ(one.factor_l1, many.factor_l1) << k->isa << " n=" << n << " threads=" << threads;
        EXPECT_EQ(one.orth_l1, many.orth_l1) << k->isa << " n=" << n << " threads=" << threads;
      }
    }
  }
}

// check_qr's maxima over a batch (read from f32 tensors, as the judge passes them) against the
// plain computation's, with fewer matrices than threads (each matrix split where n >= 256) and more.
TEST(QrCheckKernels, CheckQrMatchesThePlainComputationWithAnyThreads) {
  struct shape {
    std::size_t batch, n;
  };
  for (const shape sh : {shape{2, 17}, shape{7, 64}, shape{5, 200}, shape{1, 300}, shape{2, 257}})
    for (const unsigned threads : {1U, 4U}) {
      const auto b = static_cast<std::int64_t>(sh.batch), n = static_cast<std::int64_t>(sh.n);
      host_tensor a(tensor_desc{"A", dtype::f32, {b, n, n}});
      host_tensor h(tensor_desc{"H", dtype::f32, {b, n, n}});
      host_tensor tau(tensor_desc{"tau", dtype::f32, {b, n}});
      qr_measures want;
      for (std::size_t m = 0; m < sh.batch; ++m) {
        const factored f = factor_in_f32(random_matrix(sh.n, "mixed", 40 + m), sh.n);
        const std::size_t nn = sh.n * sh.n;
        for (std::size_t e = 0; e < nn; ++e) {
          a.set(m * nn + e, f.a[e]);
          h.set(m * nn + e, f.h[e]);
        }
        for (std::size_t k = 0; k < sh.n; ++k) tau.set(m * sh.n + k, f.tau[k]);
        const qr_measures p = plain_measures(f);  // f holds exactly the f32 values set above
        want = {std::max(want.backward, p.backward), std::max(want.orthogonality, p.orthogonality),
                std::max(want.factor_l1, p.factor_l1), std::max(want.orth_l1, p.orth_l1)};
      }
      const qr_check_result r = check_qr(a, h, tau, dtype::f32, qr_check_c, threads);
      EXPECT_TRUE(r.cmp.pass) << r.cmp.reason;
      expect_close({r.max_backward, r.max_orthogonality, r.max_factor_l1, r.max_orth_l1}, want,
                   std::to_string(sh.batch) + " x " + std::to_string(sh.n) + " threads=" + std::to_string(threads));
    }
}

}  // namespace
}  // namespace kjudge
