#include "stats/stats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

namespace kjudge::stats {
namespace {

// Test-only deterministic generator (splitmix64), so the fixed data is the same everywhere.
struct test_rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }  // [0, 1)
  double normal() {  // Box-Muller
    const double u1 = 1.0 - uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
};

std::vector<double> shuffled(std::vector<double> v, std::uint64_t seed) {
  test_rng rng{seed};
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.next() % i]);
  return v;
}

TEST(Stats, MedianEvenAndOdd) {
  const std::vector<double> even{4, 1, 3, 2};
  const std::vector<double> odd{7, -1, 3};
  EXPECT_DOUBLE_EQ(median(even), 2.5);
  EXPECT_DOUBLE_EQ(median(odd), 3.0);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{42.0}), 42.0);
}

TEST(Stats, QuantileMatchesNumpyType7) {
  // numpy.quantile([1, 3, 4, 10], q), default method "linear": h = (n-1) q,
  // x[floor h] + frac(h) (x[floor h + 1] - x[floor h]).
  //   q = 0.3:  h = 0.9,  1 + 0.9 (3 - 1)  = 2.8
  //   q = 0.75: h = 2.25, 4 + 0.25 (10 - 4) = 5.5
  const std::vector<double> xs{10, 3, 1, 4};
  EXPECT_DOUBLE_EQ(quantile(xs, 0.3), 2.8);
  EXPECT_DOUBLE_EQ(quantile(xs, 0.75), 5.5);
  EXPECT_DOUBLE_EQ(quantile(xs, 0.5), 3.5);
  EXPECT_DOUBLE_EQ(quantile(xs, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(xs, 1.0), 10.0);
  EXPECT_THROW(quantile(xs, 1.5), std::invalid_argument);
  EXPECT_THROW(quantile(xs, -0.1), std::invalid_argument);
}

TEST(Stats, MeanAndGeometricMean) {
  EXPECT_DOUBLE_EQ(mean(std::vector<double>{1, 2, 3, 6}), 3.0);
  EXPECT_NEAR(geometric_mean(std::vector<double>{1, 2, 4}), 2.0, 1e-15);
  EXPECT_NEAR(geometric_mean(std::vector<double>{2, 8}), 4.0, 1e-15);
  EXPECT_THROW(geometric_mean(std::vector<double>{1, 0, 2}), std::invalid_argument);
  EXPECT_THROW(geometric_mean(std::vector<double>{1, -2}), std::invalid_argument);
}

TEST(Stats, EmptyInputsThrow) {
  const std::vector<double> empty;
  EXPECT_THROW(median(empty), std::invalid_argument);
  EXPECT_THROW(quantile(empty, 0.5), std::invalid_argument);
  EXPECT_THROW(mean(empty), std::invalid_argument);
  EXPECT_THROW(geometric_mean(empty), std::invalid_argument);
  EXPECT_THROW(median_ci(empty), std::invalid_argument);
  EXPECT_THROW(median_ci_relative_halfwidth(empty), std::invalid_argument);
  EXPECT_THROW(bootstrap_median(empty), std::invalid_argument);
  EXPECT_THROW(bootstrap_median_ratio(empty, empty), std::invalid_argument);
  EXPECT_THROW(summarize(empty), std::invalid_argument);
}

TEST(Stats, NanInputThrows) {
  const std::vector<double> xs{1.0, std::nan(""), 2.0};
  EXPECT_THROW(median(xs), std::invalid_argument);
  EXPECT_THROW(median_ci(xs), std::invalid_argument);
}

TEST(Stats, BinomialCdfKnownValues) {
  // P(X <= 5), X ~ Bin(10, 1/2) = (1+10+45+120+210+252) / 1024 = 638/1024.
  EXPECT_NEAR(binomial_cdf(5, 10, 0.5), 0.623046875, 1e-14);
  // P(X <= 1) = 11/1024.
  EXPECT_NEAR(binomial_cdf(1, 10, 0.5), 11.0 / 1024.0, 1e-15);
  // Bin(20, 0.3), k = 6, against the direct sum of C(20, i) 0.3^i 0.7^(20-i).
  double direct = 0.0;
  double c = 1.0;
  for (int i = 0; i <= 6; ++i) {
    direct += c * std::pow(0.3, i) * std::pow(0.7, 20 - i);
    c = c * (20 - i) / (i + 1);
  }
  EXPECT_NEAR(binomial_cdf(6, 20, 0.3), direct, 1e-13);
  EXPECT_EQ(binomial_cdf(-1, 10, 0.5), 0.0);
  EXPECT_EQ(binomial_cdf(10, 10, 0.5), 1.0);
  EXPECT_EQ(binomial_cdf(0, 10, 0.0), 1.0);
  EXPECT_EQ(binomial_cdf(9, 10, 1.0), 0.0);
  // Far tails stay finite and ordered where 2^-n underflows linear arithmetic.
  const double lo = binomial_cdf(4000, 10000, 0.5);
  EXPECT_GT(lo, 0.0);
  EXPECT_LT(lo, 1e-80);
  EXPECT_NEAR(binomial_cdf(5000, 10000, 0.5), 0.5 + 0.5 * 0.00797871, 1e-6);
  EXPECT_THROW(binomial_cdf(1, 10, 1.5), std::invalid_argument);
}

TEST(Stats, MedianCiN10) {
  // n = 10 at 95%: [x_(2), x_(9)] (1-based). Coverage = P(2 <= X <= 8), X ~ Bin(10, 1/2)
  //   = 1 - 2 P(X <= 1) = 1 - 2 * 11/1024 = 0.978515625 >= 0.95,
  // while [x_(3), x_(8)] covers only 1 - 2 P(X <= 2) = 1 - 2 * 56/1024 = 0.890625 < 0.95.
  EXPECT_NEAR(1.0 - 2.0 * binomial_cdf(1, 10, 0.5), 0.978515625, 1e-14);
  EXPECT_NEAR(1.0 - 2.0 * binomial_cdf(2, 10, 0.5), 0.890625, 1e-14);
  std::vector<double> xs;
  for (int i = 1; i <= 10; ++i) xs.push_back(10.0 * i);  // x_(i) = 10 i
  const interval ci = median_ci(shuffled(xs, 7));
  EXPECT_DOUBLE_EQ(ci.lo, 20.0);
  EXPECT_DOUBLE_EQ(ci.hi, 90.0);
  EXPECT_TRUE(ci.contains(55.0));
  // (90 - 20) / 2 / 55
  EXPECT_NEAR(median_ci_relative_halfwidth(xs), 35.0 / 55.0, 1e-15);
}

TEST(Stats, MedianCiN100MatchesTable) {
  // Standard table: n = 100 at 95% gives ranks 40 and 61 (P(X <= 39) = 0.0176,
  // P(X <= 40) = 0.0284 > 0.025).
  EXPECT_LT(binomial_cdf(39, 100, 0.5), 0.025);
  EXPECT_GT(binomial_cdf(40, 100, 0.5), 0.025);
  std::vector<double> xs(100);
  std::iota(xs.begin(), xs.end(), 1.0);  // x_(i) = i
  const interval ci = median_ci(shuffled(xs, 11));
  EXPECT_DOUBLE_EQ(ci.lo, 40.0);
  EXPECT_DOUBLE_EQ(ci.hi, 61.0);
}

TEST(Stats, MedianCiSmallNIsFullRange) {
  // n = 5: even [x_(1), x_(5)] covers only 1 - 2/32 = 0.9375 < 0.95.
  const std::vector<double> xs{5, 3, 9, 1, 7};
  const interval ci = median_ci(xs);
  EXPECT_DOUBLE_EQ(ci.lo, 1.0);
  EXPECT_DOUBLE_EQ(ci.hi, 9.0);
  // n = 6: [x_(1), x_(6)] covers 1 - 2/64 = 0.96875.
  const interval ci6 = median_ci(std::vector<double>{6, 2, 4, 1, 5, 3});
  EXPECT_DOUBLE_EQ(ci6.lo, 1.0);
  EXPECT_DOUBLE_EQ(ci6.hi, 6.0);
  // Lower confidence narrows n = 10 to [x_(3), x_(8)] (coverage 0.890625 >= 0.8).
  std::vector<double> ten(10);
  std::iota(ten.begin(), ten.end(), 1.0);
  const interval ci80 = median_ci(ten, 0.8);
  EXPECT_DOUBLE_EQ(ci80.lo, 3.0);
  EXPECT_DOUBLE_EQ(ci80.hi, 8.0);
  EXPECT_THROW(median_ci(ten, 1.0), std::invalid_argument);
}

TEST(Stats, SummarizeSpread) {
  const std::vector<double> xs{9, 1, 8, 2, 7, 3, 6, 4, 5};
  const spread s = summarize(xs);
  EXPECT_EQ(s.n, 9);
  EXPECT_DOUBLE_EQ(s.median, 5.0);
  EXPECT_DOUBLE_EQ(s.q25, 3.0);
  EXPECT_DOUBLE_EQ(s.q75, 7.0);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  EXPECT_DOUBLE_EQ(s.relative_iqr(), 0.8);
}

TEST(Stats, BootstrapConstantRatioIsDegenerate) {
  std::vector<double> den{10, 12.5, 9, 30, 11, 8, 14};
  std::vector<double> num;
  for (double d : den) num.push_back(3.0 * d);  // exact in binary: ratio is exactly 3
  const ratio_summary r = bootstrap_median_ratio(num, den);
  EXPECT_EQ(r.n, 7);
  EXPECT_EQ(r.median, 3.0);
  EXPECT_EQ(r.ci.lo, 3.0);
  EXPECT_EQ(r.ci.hi, 3.0);
}

TEST(Stats, BootstrapRatioGuards) {
  const std::vector<double> a{1, 2, 3};
  const std::vector<double> b{1, 2};
  const std::vector<double> z{1, 0, 3};
  EXPECT_THROW(bootstrap_median_ratio(a, b), std::invalid_argument);
  EXPECT_THROW(bootstrap_median_ratio(a, z), std::invalid_argument);
  EXPECT_THROW(bootstrap_median_ratio(a, a, 0.95, 0), std::invalid_argument);
}

// Pairs whose ratio is lognormal with median exactly 1.5 (mu = ln 1.5, sigma = 0.2), the
// denominators themselves spread over 50..150 us.
void lognormal_pairs(std::size_t n, std::uint64_t seed, std::vector<double>& num,
                     std::vector<double>& den) {
  test_rng rng{seed};
  num.clear();
  den.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const double d = 50.0 + 100.0 * rng.uniform();
    const double ratio = std::exp(std::log(1.5) + 0.2 * rng.normal());
    den.push_back(d);
    num.push_back(ratio * d);
  }
}

TEST(Stats, BootstrapLognormalCoversTrueMedianAndShrinks) {
  std::vector<double> num;
  std::vector<double> den;
  double prev_width = 0.0;
  for (std::size_t n : {20u, 80u, 320u, 1280u}) {
    lognormal_pairs(n, 1000 + n, num, den);
    const ratio_summary r = bootstrap_median_ratio(num, den, 0.95, 4000);
    EXPECT_EQ(r.n, static_cast<int>(n));
    EXPECT_TRUE(r.ci.contains(1.5)) << "n=" << n << " [" << r.ci.lo << ", " << r.ci.hi << "]";
    EXPECT_TRUE(r.ci.contains(r.median));
    const double width = r.ci.hi - r.ci.lo;
    EXPECT_GT(width, 0.0);
    // Width of the median's CI scales as 1/sqrt(n): quadrupling n about halves it (the
    // bootstrap of a small sample is lumpy, hence the loose upper factor).
    if (prev_width > 0.0) {
      EXPECT_LT(width, 0.8 * prev_width) << "n=" << n;
      EXPECT_GT(width, 0.25 * prev_width) << "n=" << n;
    }
    prev_width = width;
  }
  // At n = 1280, sigma = 0.2: asymptotic sd of the median is
  // 1.5 * 0.2 * sqrt(pi/2) / sqrt(1280) = 0.0105, so the 95% CI is about 0.041 wide.
  EXPECT_NEAR(prev_width, 0.041, 0.02);
  // At that size the bootstrap agrees with the distribution-free order-statistic interval.
  std::vector<double> ratios;
  for (std::size_t i = 0; i < num.size(); ++i) ratios.push_back(num[i] / den[i]);
  const interval os = median_ci(ratios);
  const ratio_summary r = bootstrap_median_ratio(num, den, 0.95, 4000);
  EXPECT_NEAR(r.ci.lo, os.lo, 0.005);
  EXPECT_NEAR(r.ci.hi, os.hi, 0.005);
}

TEST(Stats, BootstrapIsReproducible) {
  std::vector<double> num;
  std::vector<double> den;
  lognormal_pairs(50, 99, num, den);
  const ratio_summary a = bootstrap_median_ratio(num, den, 0.95, 2000, 1234);
  const ratio_summary b = bootstrap_median_ratio(num, den, 0.95, 2000, 1234);
  const ratio_summary c = bootstrap_median_ratio(num, den, 0.95, 2000, 4321);
  EXPECT_EQ(a.median, b.median);
  EXPECT_EQ(a.ci.lo, b.ci.lo);
  EXPECT_EQ(a.ci.hi, b.ci.hi);
  EXPECT_EQ(a.median, c.median);  // the point estimate does not depend on the seed
  EXPECT_TRUE(a.ci.lo != c.ci.lo || a.ci.hi != c.ci.hi);
}

TEST(Stats, BootstrapMedianOfSamples) {
  std::vector<double> xs(101);
  std::iota(xs.begin(), xs.end(), 0.0);
  const ratio_summary r = bootstrap_median(shuffled(xs, 3), 0.95, 3000);
  EXPECT_EQ(r.n, 101);
  EXPECT_DOUBLE_EQ(r.median, 50.0);
  EXPECT_TRUE(r.ci.contains(50.0));
  EXPECT_GE(r.ci.lo, 35.0);  // sd of the median of U over 101 points is ~5 (x 100 / sqrt(4*101))
  EXPECT_LE(r.ci.hi, 65.0);
  EXPECT_LT(r.ci.lo, 50.0);
  EXPECT_GT(r.ci.hi, 50.0);
  // The bootstrap of the same data as ratios over ones is the same computation.
  const std::vector<double> ones(101, 1.0);
  const std::vector<double> data = shuffled(xs, 3);
  const ratio_summary a = bootstrap_median(data, 0.95, 500, 77);
  const ratio_summary b = bootstrap_median_ratio(data, ones, 0.95, 500, 77);
  EXPECT_EQ(a.ci.lo, b.ci.lo);
  EXPECT_EQ(a.ci.hi, b.ci.hi);
}

TEST(Stats, EpochMedianWithOneEpochIsTheBootstrap) {
  const std::vector<double> xs{1.01, 0.99, 1.0, 1.02, 0.98, 1.005, 0.995, 1.0};
  const std::vector<int> one(xs.size(), 0);
  const auto e = epoch_median(xs, one);
  const auto b = bootstrap_median(xs);
  EXPECT_EQ(e.all.median, b.median);
  EXPECT_EQ(e.all.ci.lo, b.ci.lo);
  EXPECT_EQ(e.all.ci.hi, b.ci.hi);
  ASSERT_EQ(e.epoch_medians.size(), 1u);
  EXPECT_EQ(e.between.lo, 0.0);
  EXPECT_EQ(e.between.hi, 0.0);
  EXPECT_THROW(epoch_median(xs, std::vector<int>(3, 0)), std::invalid_argument);
}

// Two processes that each measured a tight but different median (0.98 and 1.00, as KernelBench
// #61's A/A did across runs): the rounds' bootstrap alone cannot reach both; the interval over the
// epochs (t with 1 degree of freedom) does, and the CI is the hull.
TEST(Stats, EpochMedianWidensToTheSpreadBetweenProcesses) {
  std::vector<double> xs;
  std::vector<int> ep;
  for (int i = 0; i < 5; ++i) {
    xs.push_back(0.98 * (1.0 + 1e-4 * (i - 2)));
    ep.push_back(0);
  }
  for (int i = 0; i < 5; ++i) {
    xs.push_back(1.00 * (1.0 + 1e-4 * (i - 2)));
    ep.push_back(1);
  }
  const auto e = epoch_median(xs, ep);
  ASSERT_EQ(e.epoch_medians.size(), 2u);
  EXPECT_DOUBLE_EQ(e.epoch_medians[0], 0.98);
  EXPECT_DOUBLE_EQ(e.epoch_medians[1], 1.00);
  const double d = std::log(1.00) - std::log(0.98);
  const double half = 12.706 * (d / std::sqrt(2.0)) / std::sqrt(2.0);
  const double centre = 0.5 * (std::log(0.98) + std::log(1.00));
  EXPECT_NEAR(e.between.lo, std::exp(centre - half), 1e-12);
  EXPECT_NEAR(e.between.hi, std::exp(centre + half), 1e-12);
  EXPECT_EQ(e.all.ci.lo, std::min(e.within.ci.lo, e.between.lo));
  EXPECT_EQ(e.all.ci.hi, std::max(e.within.ci.hi, e.between.hi));
  EXPECT_LT(e.all.ci.lo, 0.98);
  EXPECT_GT(e.all.ci.hi, 1.00);
  // Processes that agree add nothing: the CI is the rounds' bootstrap.
  std::vector<double> same(xs.begin(), xs.begin() + 5);
  same.insert(same.end(), xs.begin(), xs.begin() + 5);
  const auto s = epoch_median(same, ep);
  EXPECT_EQ(s.all.ci.lo, s.within.ci.lo);
  EXPECT_EQ(s.all.ci.hi, s.within.ci.hi);
}

// Coverage: a per-process effect (sd 1%) and per-round noise (sd 0.05%) around a true ratio of 1,
// 400 simulated evaluations of 10 rounds each. In one process (today's single set of workers) the
// rounds' CI covers 1 almost never (it measures one process precisely); split over 2 or 5 sets of
// processes, the CI with epochs covers it in at least 90% of them.
TEST(Stats, EpochMedianCoversAPerProcessEffect) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> process(0.0, 0.01), noise(0.0, 0.0005);
  const int trials = 400;
  const auto coverage = [&](int epochs) {
    int covered = 0;
    for (int t = 0; t < trials; ++t) {
      std::vector<double> xs;
      std::vector<int> ep;
      for (int e = 0; e < epochs; ++e) {
        const double effect = process(rng);
        for (int r = 0; r < 10 / epochs; ++r) {
          xs.push_back(std::exp(effect + noise(rng)));
          ep.push_back(e);
        }
      }
      covered += epoch_median(xs, ep, 0.95, 2000, 7 + static_cast<std::uint64_t>(t)).all.ci.contains(1.0) ? 1 : 0;
    }
    return covered;
  };
  const int one = coverage(1), two = coverage(2), five = coverage(5);
  EXPECT_LT(one, trials / 10) << one << " of " << trials;
  EXPECT_GE(two, trials * 9 / 10) << two << " of " << trials;
  EXPECT_GE(five, trials * 9 / 10) << five << " of " << trials;
}

// The spread between sets against what the rounds' own spread would give: exact on two small
// cases, and in simulation the first exceeds the second with a per-process effect and not without.
TEST(Stats, EpochMedianSaysWhetherTheSetsDifferBeyondTheRoundsNoise) {
  // Two sets of two rounds each, equal within a set: all the spread is between the sets.
  {
    const std::vector<double> xs{1.0, 1.0, 1.1, 1.1};
    const std::vector<int> ep{0, 0, 1, 1};
    const auto e = epoch_median(xs, ep);
    EXPECT_NEAR(e.sd_log_between, std::log(1.1) / std::sqrt(2.0), 1e-12);
    EXPECT_NEAR(e.sd_log_expected, 0.0, 1e-12);
  }
  // The same two rounds in both sets: nothing between the sets; the expected spread is the
  // rounds' pooled sd (log) times sqrt(pi/2) over sqrt(2 rounds per set).
  {
    const std::vector<double> xs{1.0, 1.02, 1.0, 1.02};
    const std::vector<int> ep{0, 0, 1, 1};
    const auto e = epoch_median(xs, ep);
    EXPECT_NEAR(e.sd_log_between, 0.0, 1e-12);
    const double pooled = std::sqrt(2 * 2 * std::pow(std::log(1.02) / 2, 2) / 2);
    EXPECT_NEAR(e.sd_log_expected, std::sqrt(std::numbers::pi / 2) * pooled / std::sqrt(2.0), 1e-12);
  }
  // One set, or no set with two rounds: not computable.
  EXPECT_LT(epoch_median(std::vector<double>{1.0, 1.1}, std::vector<int>{0, 0}).sd_log_between, 0.0);
  EXPECT_LT(epoch_median(std::vector<double>{1.0, 1.1}, std::vector<int>{0, 1}).sd_log_expected, 0.0);
  // 200 simulated evaluations of 3 sets x 4 rounds, round noise sd 0.1%: with a per-process
  // effect of sd 1% the sets' spread exceeds the expected one in nearly all; without it, in a
  // minority (the sqrt(pi/2) factor leans that way).
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 0.001), process(0.0, 0.01);
  const auto beyond = [&](bool with_process) {
    int n = 0;
    for (int t = 0; t < 200; ++t) {
      std::vector<double> xs;
      std::vector<int> ep;
      for (int e = 0; e < 3; ++e) {
        const double effect = with_process ? process(rng) : 0.0;
        for (int r = 0; r < 4; ++r) {
          xs.push_back(std::exp(effect + noise(rng)));
          ep.push_back(e);
        }
      }
      const auto s = epoch_median(xs, ep, 0.95, 200, static_cast<std::uint64_t>(t));
      n += s.sd_log_between > 2 * s.sd_log_expected ? 1 : 0;
    }
    return n;
  };
  EXPECT_GT(beyond(true), 180);
  EXPECT_LT(beyond(false), 40);
}

TEST(Stats, StudentT95) {
  EXPECT_DOUBLE_EQ(student_t95(1), 12.706);
  EXPECT_DOUBLE_EQ(student_t95(3), 3.182);
  EXPECT_DOUBLE_EQ(student_t95(30), 2.042);
  EXPECT_NEAR(student_t95(1000), 1.962, 0.002);
  EXPECT_THROW(student_t95(0), std::invalid_argument);
}

}  // namespace
}  // namespace kjudge::stats

namespace kjudge::stats {
namespace {

// The headline of several cases is one statistic (the geometric mean of the per-case medians) and
// its CI the bootstrap of that statistic: it lies between the cases' medians, which the
// per-round geometric mean's median did not (0.118x overall against 0.112x and 0.107x per case).
TEST(Stats, TheHeadlineIsTheGeometricMeanOfTheCasesMediansWithItsOwnCi) {
  // Two cases whose rounds move in opposite directions: a round's geomean is not the geomean of
  // the cases' medians.
  const std::vector<double> a{0.10, 0.11, 0.12, 0.13, 0.20, 0.21, 0.22};
  const std::vector<double> b{0.30, 0.29, 0.10, 0.10, 0.10, 0.28, 0.27};
  const std::vector<int> one_epoch(a.size(), 0);
  const auto head = epoch_geomean_of_medians({a, b}, one_epoch);
  const double ma = median(a), mb = median(b);
  EXPECT_NEAR(head.all.median, std::sqrt(ma * mb), 1e-12);
  EXPECT_GE(head.all.median, std::min(ma, mb));
  EXPECT_LE(head.all.median, std::max(ma, mb));
  EXPECT_LE(head.all.ci.lo, head.all.median);
  EXPECT_GE(head.all.ci.hi, head.all.median);
  // One case: exactly epoch_median.
  const auto single = epoch_geomean_of_medians({a}, one_epoch);
  const auto direct = epoch_median(a, one_epoch);
  EXPECT_DOUBLE_EQ(single.all.median, direct.all.median);
  EXPECT_DOUBLE_EQ(single.all.ci.lo, direct.all.ci.lo);
  EXPECT_DOUBLE_EQ(single.all.ci.hi, direct.all.ci.hi);
  // With epochs, the hull with the interval over the epochs' values.
  const std::vector<int> two_epochs{0, 0, 0, 1, 1, 1, 1};
  const auto split = epoch_geomean_of_medians({a, b}, two_epochs);
  EXPECT_EQ(split.epoch_medians.size(), 2u);
  EXPECT_LE(split.all.ci.lo, split.within.ci.lo);
}

// Below six rounds no 95% CI of a median exists: [min, max] of n rounds covers the median with
// probability 1 - 2^(1-n).
TEST(Stats, TheRangeOfFewRoundsCoversTheMedianWithKnownProbability) {
  EXPECT_EQ(min_rounds_for_ci95, 6);
  EXPECT_DOUBLE_EQ(range_coverage(1), 0.0);
  EXPECT_DOUBLE_EQ(range_coverage(3), 0.75);
  EXPECT_GE(range_coverage(min_rounds_for_ci95), 0.95);
  EXPECT_LT(range_coverage(min_rounds_for_ci95 - 1), 0.95);
}

}  // namespace
}  // namespace kjudge::stats
