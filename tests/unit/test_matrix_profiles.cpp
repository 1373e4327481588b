// The matrix profiles (inputs/matrix_profiles.hpp): each profile's structure holds on its
// matrices, values depend only on the seed, and a mixed batch draws several profiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "inputs/distributions.hpp"
#include "inputs/matrix_profiles.hpp"

namespace kjudge {
namespace {

host_tensor draw(const std::string& profile, std::int64_t b, std::int64_t n, std::uint64_t seed, dtype t = dtype::f32) {
  host_tensor a(tensor_desc{"A", t, {b, n, n}});
  fill_distribution(a, profile, seed, 0);
  return a;
}

double at(const host_tensor& a, std::size_t b, std::size_t n, std::size_t i, std::size_t j) {
  return a.get(b * n * n + i * n + j);
}

// |R_jj| of a Householder QR in double of matrix b (no pivoting): where column j depends on
// columns before it, |R_jj| is the size of what it adds.
std::vector<double> r_diagonal(const host_tensor& t, std::size_t b, std::size_t n) {
  std::vector<double> a(n * n);
  for (std::size_t e = 0; e < n * n; ++e) a[e] = t.get(b * n * n + e);
  std::vector<double> d(n);
  for (std::size_t k = 0; k < n; ++k) {
    double norm2 = 0.0;
    for (std::size_t i = k; i < n; ++i) norm2 += a[i * n + k] * a[i * n + k];
    const double alpha = a[k * n + k] >= 0 ? -std::sqrt(norm2) : std::sqrt(norm2);
    d[k] = std::fabs(alpha);
    std::vector<double> v(n, 0.0);
    for (std::size_t i = k; i < n; ++i) v[i] = a[i * n + k];
    v[k] -= alpha;
    double vv = 0.0;
    for (std::size_t i = k; i < n; ++i) vv += v[i] * v[i];
    if (vv == 0.0) continue;
    for (std::size_t j = k; j < n; ++j) {
      double s = 0.0;
      for (std::size_t i = k; i < n; ++i) s += v[i] * a[i * n + j];
      for (std::size_t i = k; i < n; ++i) a[i * n + j] -= 2.0 * s / vv * v[i];
    }
  }
  return d;
}

bool same_bytes(const host_tensor& x, const host_tensor& y) {
  return x.nbytes() == y.nbytes() && std::memcmp(x.data(), y.data(), x.nbytes()) == 0;
}

TEST(DistributionsMatrixProfiles, NamesAreKnownAndSeedDeterminesTheBytes) {
  EXPECT_EQ(known_distributions().size(), 8u);  // the elementwise list is unchanged
  EXPECT_EQ(all_distribution_names().size(), 8u + matrix_profiles().size());
  for (const auto& p : matrix_profiles()) {
    SCOPED_TRACE(p);
    EXPECT_TRUE(is_known_distribution(p));
    const host_tensor a = draw(p, 5, 17, 3), again = draw(p, 5, 17, 3), other = draw(p, 5, 17, 4);
    EXPECT_TRUE(same_bytes(a, again));
    EXPECT_FALSE(same_bytes(a, other));
    for (std::size_t e = 0; e < a.numel(); ++e) ASSERT_TRUE(std::isfinite(a.get(e)));
    const host_tensor d = draw(p, 2, 9, 3, dtype::f64);
    for (std::size_t e = 0; e < d.numel(); ++e) ASSERT_TRUE(std::isfinite(d.get(e)));
    host_tensor flat(tensor_desc{"x", dtype::f32, {4, 3}});
    EXPECT_THROW(fill_distribution(flat, p, 1, 0), usage_error);
  }
}

// a / z per element, z the normal draw of the same seed (which every profile starts from).
double ratio(const host_tensor& a, const host_tensor& z, std::size_t e) {
  return a.get(e) / z.get(e);
}

TEST(DistributionsMatrixProfiles, ScalingsFollowTheirLogspace) {
  const std::size_t n = 21;
  const host_tensor z = draw("normal", 3, n, 8);
  const host_tensor c4 = draw("cond4", 3, n, 8), rows = draw("rowscale", 3, n, 8), cl = draw("clustered", 3, n, 8);
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        const std::size_t e = b * n * n + i * n + j;
        const double col = std::pow(10.0, -4.0 * static_cast<double>(j) / (n - 1));
        const double row = std::pow(10.0, -4.0 * static_cast<double>(i) / (n - 1));
        EXPECT_NEAR(ratio(c4, z, e), col, 1e-6 * col);
        EXPECT_NEAR(ratio(rows, z, e), row, 1e-6 * row);
        const double eps = std::ldexp(1.0, -23);
        const double s = j >= 8 && j < 12 ? std::sqrt(eps) : j >= n / 2 ? 4 * eps : 1.0;
        EXPECT_NEAR(ratio(cl, z, e), s, 1e-6 * s);
      }
}

TEST(DistributionsMatrixProfiles, ZeroPatternsHold) {
  const std::size_t n = 70;  // band width max(2, min(32, 70 / 32)) = 2
  const host_tensor up = draw("uppertri", 2, n, 5), band = draw("band", 2, n, 5), rd = draw("rankdef", 2, n, 5);
  const std::size_t r = 3 * n / 4;
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        EXPECT_EQ(at(up, b, n, i, j) == 0.0, i > j) << i << "," << j;
        const bool in_band = (i > j ? i - j : j - i) <= 2;
        EXPECT_EQ(at(band, b, n, i, j) == 0.0, !in_band) << i << "," << j;
        if (j >= r)
          EXPECT_EQ(at(rd, b, n, i, j), 0.0);
        else
          EXPECT_NE(at(rd, b, n, i, j), 0.0);
      }
}

TEST(DistributionsMatrixProfiles, RankDeficientProfilesLoseTheirTrailingRank) {
  const std::size_t n = 32, r = 24;
  const host_tensor rd = draw("rankdef", 2, n, 9), nr = draw("nearrank", 2, n, 9), nc = draw("nearcollinear", 2, n, 9);
  const host_tensor dense = draw("cond1", 2, n, 9);
  for (std::size_t b = 0; b < 2; ++b) {
    const auto d_rd = r_diagonal(rd, b, n), d_nr = r_diagonal(nr, b, n), d_nc = r_diagonal(nc, b, n);
    const auto d_dense = r_diagonal(dense, b, n);
    for (std::size_t k = 0; k < n; ++k) {
      EXPECT_GT(d_dense[k], 1e-6) << k;  // full rank
      if (k < r) {
        EXPECT_GT(d_rd[k], 1e-3) << k;
        EXPECT_GT(d_nr[k], 1e-3) << k;
      } else {
        EXPECT_LT(d_rd[k], 1e-12) << k;
        EXPECT_LT(d_nr[k], 1e-3) << k;  // 1e-5 noise: ~1e-5 * sqrt(n - k)
        EXPECT_GT(d_nr[k], 1e-7) << k;
      }
      // Every column is one column plus 1e-4 noise: beyond the first, R's diagonal is ~1e-4.
      if (k > 0) {
        EXPECT_LT(d_nc[k], 1e-2) << k;
      }
    }
    EXPECT_GT(d_nc[0], 1.0);
  }
}

TEST(DistributionsMatrixProfiles, MixedBatchesInterleaveProfiles) {
  const auto labels = mixed_profile_labels(64, 11);
  const std::set<std::string> distinct(labels.begin(), labels.end());
  EXPECT_GE(distinct.size(), 4u);
  EXPECT_TRUE(distinct.count("cond2"));
  const auto dense = static_cast<std::size_t>(std::count(labels.begin(), labels.end(), "cond2"));
  EXPECT_GT(dense, 16u);
  EXPECT_LT(dense, 48u);
  EXPECT_EQ(labels, mixed_profile_labels(64, 11));
  EXPECT_NE(labels, mixed_profile_labels(64, 12));
  for (std::uint64_t seed = 0; seed < 200; ++seed) {  // two matrices: one dense, one other
    const auto two = mixed_profile_labels(2, seed);
    ASSERT_EQ(std::count(two.begin(), two.end(), "cond2"), 1) << seed;
  }
  // The drawn matrices carry their label's structure.
  const std::size_t n = 40, r = 30;
  const host_tensor a = draw("mixed", 64, n, 11);
  for (std::size_t b = 0; b < 64; ++b) {
    if (labels[b] == "rankdef") {
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(at(a, b, n, i, r), 0.0);
    }
    if (labels[b] == "band") {
      EXPECT_EQ(at(a, b, n, 0, n - 1), 0.0);
    }
    if (labels[b] == "cond2") {
      EXPECT_NE(at(a, b, n, 0, n - 1), 0.0);
    }
  }
}

}  // namespace
}  // namespace kjudge
