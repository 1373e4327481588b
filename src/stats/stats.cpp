#include "stats/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

namespace kjudge::stats {

namespace {

void require_nonempty(std::span<const double> xs, const char* what) {
  if (xs.empty()) throw std::invalid_argument(std::string(what) + ": empty input");
}

// NaN breaks the strict weak ordering std::sort and std::nth_element rely on.
void require_no_nan(std::span<const double> xs, const char* what) {
  for (double x : xs) {
    if (std::isnan(x)) throw std::invalid_argument(std::string(what) + ": NaN in input");
  }
}

void require_confidence(double confidence, const char* what) {
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw std::invalid_argument(std::string(what) + ": confidence must be in (0, 1)");
  }
}

std::vector<double> sorted_copy(std::span<const double> xs) {
  std::vector<double> v(xs.begin(), xs.end());
  std::sort(v.begin(), v.end());
  return v;
}

double quantile_sorted(const std::vector<double>& v, double q) {
  const std::size_t n = v.size();
  const double h = static_cast<double>(n - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= n) return v[n - 1];
  const double frac = h - static_cast<double>(lo);
  return v[lo] + frac * (v[lo + 1] - v[lo]);
}

// Median of v, reordering it; nth_element selects by value, so the result does not depend on
// the standard library's partitioning strategy.
double median_inplace(std::vector<double>& v) {
  const std::size_t n = v.size();
  const std::size_t mid = n / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2.0;
}

double median_sorted(const std::vector<double>& v) {
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

// splitmix64 seeds xoshiro256**; both are fully specified integer recurrences, so a bootstrap
// result is the same on every platform and standard library.
std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class xoshiro256ss {
 public:
  explicit xoshiro256ss(std::uint64_t seed) {
    for (auto& s : m_s) s = splitmix64(seed);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(m_s[1] * 5, 7) * 9;
    const std::uint64_t t = m_s[1] << 17;
    m_s[2] ^= m_s[0];
    m_s[3] ^= m_s[1];
    m_s[1] ^= m_s[2];
    m_s[0] ^= m_s[3];
    m_s[2] ^= t;
    m_s[3] = rotl(m_s[3], 45);
    return result;
  }

  // Uniform integer in [0, bound), bound > 0, without modulo bias: draws below 2^64 mod bound
  // are rejected so that every residue is equally likely.
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t threshold = (0 - bound) % bound;
    for (;;) {
      const std::uint64_t r = next();
      if (r >= threshold) return r % bound;
    }
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t m_s[4] = {};
};

double log_binomial_pmf(int i, int n, double log_p, double log_q) {
  return std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + i * log_p + (n - i) * log_q;
}

}  // namespace

double median(std::span<const double> xs) {
  require_nonempty(xs, "median");
  require_no_nan(xs, "median");
  std::vector<double> v(xs.begin(), xs.end());
  return median_inplace(v);
}

double quantile(std::span<const double> xs, double q) {
  require_nonempty(xs, "quantile");
  require_no_nan(xs, "quantile");
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("quantile: q must be in [0, 1]");
  return quantile_sorted(sorted_copy(xs), q);
}

double mean(std::span<const double> xs) {
  require_nonempty(xs, "mean");
  double sum = 0.0;
  for (double x : xs) sum += x;
  return sum / static_cast<double>(xs.size());
}

double geometric_mean(std::span<const double> xs) {
  require_nonempty(xs, "geometric_mean");
  double log_sum = 0.0;
  for (double x : xs) {
    if (!(x > 0.0)) throw std::invalid_argument("geometric_mean: values must be positive");
    log_sum += std::log(x);
  }
  return std::exp(log_sum / static_cast<double>(xs.size()));
}

interval median_ci(std::span<const double> xs, double confidence) {
  require_nonempty(xs, "median_ci");
  require_no_nan(xs, "median_ci");
  require_confidence(confidence, "median_ci");
  const std::vector<double> v = sorted_copy(xs);
  const int n = static_cast<int>(v.size());
  // [x_(j), x_(n+1-j)] (1-based) covers the median with probability 1 - 2 P(X <= j-1),
  // X ~ Bin(n, 1/2). Take the largest j whose tail P(X <= j-1) stays within (1-confidence)/2.
  // The relative slack absorbs rounding in the accumulated tail at exact boundaries.
  const double tail_budget = (1.0 - confidence) / 2.0 * (1.0 + 1e-12);
  const double log_half = std::log(0.5);
  double tail = 0.0;  // P(X <= j-1) for the current candidate j
  int j = 0;          // 0: no interval reaches the requested coverage
  for (int i = 0; 2 * (i + 1) <= n; ++i) {
    tail += std::exp(log_binomial_pmf(i, n, log_half, log_half));
    if (tail > tail_budget) break;
    j = i + 1;
  }
  if (j == 0) return {v.front(), v.back()};
  return {v[static_cast<std::size_t>(j - 1)], v[static_cast<std::size_t>(n - j)]};
}

double median_ci_relative_halfwidth(std::span<const double> xs, double confidence) {
  const interval ci = median_ci(xs, confidence);
  const double m = median(xs);
  const double half = (ci.hi - ci.lo) / 2.0;
  if (m == 0.0) return half == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return half / std::fabs(m);
}

ratio_summary bootstrap_median(std::span<const double> xs, double confidence, int resamples, std::uint64_t seed) {
  require_nonempty(xs, "bootstrap_median");
  require_no_nan(xs, "bootstrap_median");
  require_confidence(confidence, "bootstrap_median");
  if (resamples < 1) throw std::invalid_argument("bootstrap_median: resamples must be >= 1");

  ratio_summary out;
  out.n = static_cast<int>(xs.size());
  out.median = median(xs);

  xoshiro256ss rng(seed);
  const std::uint64_t n = xs.size();
  std::vector<double> sample(xs.size());
  std::vector<double> medians(static_cast<std::size_t>(resamples));
  for (auto& m : medians) {
    for (auto& s : sample) s = xs[static_cast<std::size_t>(rng.below(n))];
    m = median_inplace(sample);
  }
  std::sort(medians.begin(), medians.end());
  const double alpha = 1.0 - confidence;
  out.ci = {quantile_sorted(medians, alpha / 2.0), quantile_sorted(medians, 1.0 - alpha / 2.0)};
  return out;
}

ratio_summary bootstrap_median_ratio(std::span<const double> num, std::span<const double> den, double confidence,
                                     int resamples, std::uint64_t seed) {
  require_nonempty(num, "bootstrap_median_ratio");
  if (num.size() != den.size()) {
    throw std::invalid_argument("bootstrap_median_ratio: num and den differ in size");
  }
  std::vector<double> ratios(num.size());
  for (std::size_t i = 0; i < num.size(); ++i) {
    if (den[i] == 0.0 || !std::isfinite(den[i]) || !std::isfinite(num[i])) {
      throw std::invalid_argument("bootstrap_median_ratio: non-finite value or zero denominator");
    }
    ratios[i] = num[i] / den[i];
  }
  // Resampling ratios is resampling pair indices: each ratio carries its pair.
  return bootstrap_median(ratios, confidence, resamples, seed);
}

double student_t95(int dof) {
  if (dof < 1) throw std::invalid_argument("student_t95: dof must be >= 1");
  // t_{0.975, dof} for dof 1..30 (standard tables); beyond, 1.96 + 2.4/dof is within 0.002 of it.
  static constexpr double table[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                       2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                       2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof <= 30) return table[dof - 1];
  return 1.96 + 2.4 / static_cast<double>(dof);
}

namespace {

// epoch_median and epoch_geomean_of_medians: a statistic of the rounds (`stat` of a list of round
// indices, positive), its percentile bootstrap over rounds and, with two or more epochs, the hull
// with a Student t interval over the epochs' values in log space. `per_round` is the statistic's
// value of each round alone, for the process-spread diagnostic.
template <typename Stat>
epoch_summary epoch_statistic(std::size_t n, std::span<const int> epoch_of_round, const Stat& stat,
                              const std::vector<double>& per_round, double confidence, int resamples,
                              std::uint64_t seed, const char* what) {
  if (n == 0) throw std::invalid_argument(std::string(what) + ": empty input");
  if (epoch_of_round.size() != n) throw std::invalid_argument(std::string(what) + ": one epoch per round expected");
  require_confidence(confidence, what);
  if (resamples < 1) throw std::invalid_argument(std::string(what) + ": resamples must be >= 1");
  epoch_summary out;
  std::vector<std::size_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = i;
  out.within.n = static_cast<int>(n);
  out.within.median = stat(all);
  {
    xoshiro256ss rng(seed);
    std::vector<std::size_t> sample(n);
    std::vector<double> values(static_cast<std::size_t>(resamples));
    for (auto& v : values) {
      for (auto& k : sample) k = static_cast<std::size_t>(rng.below(n));
      v = stat(sample);
    }
    std::sort(values.begin(), values.end());
    const double alpha = 1.0 - confidence;
    out.within.ci = {quantile_sorted(values, alpha / 2.0), quantile_sorted(values, 1.0 - alpha / 2.0)};
  }
  out.all = out.within;
  std::vector<int> ids(epoch_of_round.begin(), epoch_of_round.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<std::vector<std::size_t>> groups;  // each epoch's rounds, in epoch order
  for (int e : ids) {
    std::vector<std::size_t>& in = groups.emplace_back();
    for (std::size_t i = 0; i < n; ++i)
      if (epoch_of_round[i] == e) in.push_back(i);
    out.epoch_medians.push_back(stat(in));
  }
  if (ids.size() < 2) return out;
  if (std::fabs(confidence - 0.95) > 1e-12)
    throw std::invalid_argument(std::string(what) + ": only confidence 0.95 with epochs");
  std::vector<double> logs;
  for (double m : out.epoch_medians) {
    if (!(m > 0.0) || !std::isfinite(m))
      throw std::invalid_argument(std::string(what) + ": epoch values must be positive");
    logs.push_back(std::log(m));
  }
  const double k = static_cast<double>(logs.size());
  const double mean_log = mean(logs);
  double ss = 0.0;
  for (double l : logs) ss += (l - mean_log) * (l - mean_log);
  const double sd = std::sqrt(ss / (k - 1.0));
  const double half = student_t95(static_cast<int>(logs.size()) - 1) * sd / std::sqrt(k);
  out.sd_log_between = sd;
  {
    double within_ss = 0.0;
    std::size_t dof = 0;
    for (const auto& g : groups) {
      std::vector<double> in;
      for (std::size_t r : g)
        in.push_back(per_round[r] > 0.0 ? std::log(per_round[r]) : std::numeric_limits<double>::quiet_NaN());
      const double m = mean(in);
      for (double l : in) within_ss += (l - m) * (l - m);
      dof += in.size() - 1;
    }
    if (dof > 0 && std::isfinite(within_ss)) {
      const double per_epoch = static_cast<double>(n) / k;
      out.sd_log_expected =
          std::sqrt(std::numbers::pi / 2.0) * std::sqrt(within_ss / static_cast<double>(dof)) / std::sqrt(per_epoch);
    }
  }
  out.between = {std::exp(mean_log - half), std::exp(mean_log + half)};
  out.all.ci = {std::min(out.within.ci.lo, out.between.lo), std::max(out.within.ci.hi, out.between.hi)};
  return out;
}

}  // namespace

epoch_summary epoch_median(std::span<const double> xs, std::span<const int> epoch_of_round, double confidence,
                           int resamples, std::uint64_t seed) {
  require_nonempty(xs, "epoch_median");
  require_no_nan(xs, "epoch_median");
  std::vector<double> pick;
  const auto stat = [&](const std::vector<std::size_t>& rounds) {
    pick.resize(rounds.size());
    for (std::size_t i = 0; i < rounds.size(); ++i) pick[i] = xs[rounds[i]];
    return median_inplace(pick);
  };
  return epoch_statistic(xs.size(), epoch_of_round, stat, std::vector<double>(xs.begin(), xs.end()), confidence,
                         resamples, seed, "epoch_median");
}

epoch_summary epoch_geomean_of_medians(const std::vector<std::vector<double>>& per_case,
                                       std::span<const int> epoch_of_round, double confidence, int resamples,
                                       std::uint64_t seed) {
  if (per_case.empty()) throw std::invalid_argument("epoch_geomean_of_medians: no cases");
  const std::size_t n = per_case[0].size();
  for (const auto& c : per_case) {
    if (c.size() != n) throw std::invalid_argument("epoch_geomean_of_medians: every case needs every round");
    require_nonempty(c, "epoch_geomean_of_medians");
    for (double x : c)
      if (!(x > 0.0) || !std::isfinite(x))
        throw std::invalid_argument("epoch_geomean_of_medians: values must be positive");
  }
  std::vector<double> pick;
  const auto stat = [&](const std::vector<std::size_t>& rounds) {
    double log_sum = 0.0;
    for (const auto& c : per_case) {
      pick.resize(rounds.size());
      for (std::size_t i = 0; i < rounds.size(); ++i) pick[i] = c[rounds[i]];
      log_sum += std::log(median_inplace(pick));
    }
    return std::exp(log_sum / static_cast<double>(per_case.size()));
  };
  std::vector<double> per_round(n);
  for (std::size_t r = 0; r < n; ++r) per_round[r] = stat(std::vector<std::size_t>{r});
  return epoch_statistic(n, epoch_of_round, stat, per_round, confidence, resamples, seed, "epoch_geomean_of_medians");
}

double range_coverage(int n) {
  return n < 1 ? 0.0 : 1.0 - std::pow(0.5, n - 1);
}

spread summarize(std::span<const double> xs) {
  require_nonempty(xs, "summarize");
  require_no_nan(xs, "summarize");
  const std::vector<double> v = sorted_copy(xs);
  spread s;
  s.n = static_cast<int>(v.size());
  s.median = median_sorted(v);
  s.q25 = quantile_sorted(v, 0.25);
  s.q75 = quantile_sorted(v, 0.75);
  s.min = v.front();
  s.max = v.back();
  return s;
}

double binomial_cdf(int k, int n, double p) {
  if (n < 0) throw std::invalid_argument("binomial_cdf: n must be >= 0");
  if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument("binomial_cdf: p must be in [0, 1]");
  if (k < 0) return 0.0;
  if (k >= n) return 1.0;
  if (p == 0.0) return 1.0;
  if (p == 1.0) return 0.0;
  const double log_p = std::log(p);
  const double log_q = std::log1p(-p);
  // log-sum-exp over the pmf terms 0..k: the largest term is factored out so that neither the
  // terms (2^-n underflows past n = 1074) nor their sum lose precision.
  std::vector<double> terms(static_cast<std::size_t>(k) + 1);
  double top = -std::numeric_limits<double>::infinity();
  for (int i = 0; i <= k; ++i) {
    terms[static_cast<std::size_t>(i)] = log_binomial_pmf(i, n, log_p, log_q);
    top = std::max(top, terms[static_cast<std::size_t>(i)]);
  }
  double sum = 0.0;
  for (double t : terms) sum += std::exp(t - top);
  return std::min(1.0, std::exp(top + std::log(sum)));
}

}  // namespace kjudge::stats
