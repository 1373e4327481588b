// Small statistics for timing: order statistics, confidence intervals of the median, and the
// bootstrap CI of a median paired ratio (DESIGN.md §4). Free functions with guards: empty inputs
// throw std::invalid_argument.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace kjudge::stats {

double median(std::span<const double> xs);
// Linear-interpolated quantile, q in [0,1] (type 7, as numpy's default).
double quantile(std::span<const double> xs, double q);
double mean(std::span<const double> xs);
double geometric_mean(std::span<const double> xs);  // all xs > 0

struct interval {
  double lo = 0.0;
  double hi = 0.0;
  [[nodiscard]] bool contains(double v) const { return lo <= v && v <= hi; }
};

// Distribution-free CI of the median from order statistics (binomial(n, 1/2)); the interval
// [x_(j), x_(k)] with coverage >= `confidence`. For n < 6 at 95% no such interval exists and the
// full range is returned.
interval median_ci(std::span<const double> xs, double confidence = 0.95);

// Half-width of median_ci relative to the median: (hi - lo) / 2 / median.
double median_ci_relative_halfwidth(std::span<const double> xs, double confidence = 0.95);

// Percentile bootstrap CI of median(num[i] / den[i]) over paired observations, resampling pairs
// with replacement `resamples` times, with a fixed seed so that a result is reproducible.
struct ratio_summary {
  double median = 0.0;
  interval ci;
  int n = 0;
};
ratio_summary bootstrap_median_ratio(std::span<const double> num, std::span<const double> den, double confidence = 0.95,
                                     int resamples = 10000, std::uint64_t seed = 0x6b6a75646765ULL);

// Percentile bootstrap CI of the median of xs.
ratio_summary bootstrap_median(std::span<const double> xs, double confidence = 0.95, int resamples = 10000,
                               std::uint64_t seed = 0x6b6a75646765ULL);

// The median of positive per-round values (ratios) and its CI when the rounds were timed in
// successive sets of worker processes ("epochs": epoch_of_round[i] is round i's). Rounds within
// one process share whatever the process fixed for its lifetime (the kernel a library chose, where
// its buffers landed), so the bootstrap over rounds shows only the spread within processes; with
// two or more epochs the CI is the hull of that bootstrap CI and a Student t interval over the
// epochs' medians in log space (the spread between processes). With one epoch it is
// bootstrap_median. Only confidence 0.95 is supported with epochs (a t table).
struct epoch_summary {
  ratio_summary all;                  // median and CI as described
  ratio_summary within;               // the bootstrap over rounds alone
  std::vector<double> epoch_medians;  // in epoch order
  interval between;                   // the t interval over epochs ({0, 0} with one epoch)
  // Is there a spread between processes at all? The standard deviation of the epochs' medians in
  // log space, and what the rounds' own spread would give them alone: sqrt(pi/2) (a median's
  // spread against a mean's, which overstates it for few rounds: the comparison leans towards
  // "no process effect") times the pooled within-epoch standard deviation of log values over
  // sqrt(the mean rounds per epoch). The first well above the second is a per-process effect.
  // -1 where it cannot be computed (one epoch; no epoch with two rounds).
  double sd_log_between = -1.0;
  double sd_log_expected = -1.0;
};
epoch_summary epoch_median(std::span<const double> xs, std::span<const int> epoch_of_round, double confidence = 0.95,
                           int resamples = 10000, std::uint64_t seed = 0x6b6a75646765ULL);

// The headline of several cases as one statistic of the rounds: the geometric mean over cases of
// each case's median (per_case[c][r]: case c's value in round r, positive), with its CI as
// epoch_median's (the bootstrap resamples whole rounds, every case's value of a round together).
// The estimate is the geometric mean of the per-case medians the cases report, so it lies
// between them, and its CI is the CI of that very number. With one case it is epoch_median.
epoch_summary epoch_geomean_of_medians(const std::vector<std::vector<double>>& per_case,
                                       std::span<const int> epoch_of_round, double confidence = 0.95,
                                       int resamples = 10000, std::uint64_t seed = 0x6b6a75646765ULL);

// Rounds below which no 95% CI of a median is reported: the distribution-free interval of the
// median needs n >= 6 (its widest form, [min, max], covers the median with probability
// 1 - 2^(1-n): 97% at 6, 75% at 3), and a percentile bootstrap over fewer rounds is no better.
inline constexpr int min_rounds_for_ci95 = 6;
// The probability that [min, max] of n independent rounds covers their median: 1 - 2^(1-n).
double range_coverage(int n);

// Two-sided Student t quantile t_{1 - alpha/2, dof} for confidence 0.95 (alpha 0.05), dof >= 1.
double student_t95(int dof);

// Spread summary for printing: median, IQR relative to the median, min, max.
struct spread {
  double median = 0.0;
  double q25 = 0.0;
  double q75 = 0.0;
  double min = 0.0;
  double max = 0.0;
  int n = 0;
  [[nodiscard]] double relative_iqr() const { return median > 0 ? (q75 - q25) / median : 0.0; }
};
spread summarize(std::span<const double> xs);

// Binomial CDF P(X <= k) for X ~ Bin(n, p), computed stably in log space.
double binomial_cdf(int k, int n, double p);

}  // namespace kjudge::stats
