#include "planner/planner.hpp"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "problem/expr.hpp"

// Plans are reproducible from the secret seed on any machine (see inputs/counter_rng.hpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
#include "inputs/counter_rng.hpp"

namespace kjudge {
namespace detail {
namespace {

// Salts separating the seed streams of the plan (ASCII tags, only distinctness matters).
constexpr std::uint64_t k_salt_public = 0x7075626c6963ULL;       // "public"
constexpr std::uint64_t k_salt_bench = 0x62656e6368ULL;          // "bench"
constexpr std::uint64_t k_salt_hidden_case = 0x68696464656eULL;  // "hidden"
constexpr std::uint64_t k_salt_hidden_shape = 0x7368617065ULL;   // "shape"
// Public inputs are the same in every run and on every device: a fixed key mixed with the
// problem's name.
constexpr std::uint64_t k_public_key = 0x6b6a75646765ULL;  // "kjudge"
// Random hidden draws tried per slot before accepting a repeated shape (rejections come from
// max_elements and constraints; typical acceptance is well above 10%).
constexpr int k_draw_attempts = 512;
// Steps of the binary search for the largest log-space scale that fits max_elements.
constexpr int k_bisect_steps = 48;

constexpr double k_ln2 = 0.6931471805599453;

double det_ln(double x) {
  return det_log(x);
}
double det_exp(double x) {
  return det_exp2(x / k_ln2);
}

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string key_of(const symbol_values& s) {
  std::string k;
  for (const auto& [n, v] : s) k += n + "=" + std::to_string(v) + ";";
  return k;
}

// Draws hidden shapes for one device's generator.
class hidden_planner {
 public:
  hidden_planner(const problem_spec& p, const hidden_spec& h, dtype variant, std::uint64_t key)
      : m_p(p), m_h(h), m_variant(variant), m_key(key) {}

  // At least `count` shapes: every extreme (even past `count`), then random draws, continued
  // until `regular_wanted` shapes have every extent >= 2 where the ranges allow one.
  std::vector<symbol_values> shapes(int count, std::size_t regular_wanted) {
    std::vector<symbol_values> out;
    std::set<std::string> seen;
    const auto add = [&](const std::optional<symbol_values>& s) {
      if (!s || !feasible(*s)) return;
      if (seen.insert(key_of(*s)).second) out.push_back(*s);
    };
    const std::size_t n = m_h.ranges.size();
    add(at_fractions(std::vector<double>(n, 0.0)));  // every symbol at its min: M=1, N=1
    const std::optional<symbol_values> biggest = largest_fitting(std::vector<bool>(n, true));
    add(biggest);
    add(awkward(biggest));
    if (n > 1) {
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<bool> grow(n, true);
        grow[i] = false;  // symbol i at its min, the others as large as fit: M=1 with N large
        add(largest_fitting(grow));
      }
    }
    const auto regulars = [&] {
      return static_cast<std::size_t>(std::count_if(out.begin(), out.end(), [&](const auto& s) { return regular(s); }));
    };
    while (static_cast<int>(out.size()) < count || regulars() < regular_wanted) {
      // Past `count`, a draw is kept only if it is regular: it is there for a distribution.
      const bool need_regular = static_cast<int>(out.size()) >= count;
      std::optional<symbol_values> fresh;
      std::optional<symbol_values> repeat;
      for (int a = 0; a < k_draw_attempts && !fresh; ++a) {
        symbol_values s = random_draw();
        if (!feasible(s) || (need_regular && !regular(s))) continue;
        if (seen.count(key_of(s)))
          repeat = s;
        else
          fresh = s;
      }
      if (fresh) {
        seen.insert(key_of(*fresh));
        out.push_back(*fresh);
      } else if (repeat) {
        out.push_back(*repeat);  // the ranges hold fewer shapes than `count`
      } else if (!out.empty() && !need_regular) {
        out.push_back(out[next() % out.size()]);  // only extremes are feasible
      } else {
        break;
      }
    }
    if (out.empty() && count > 0) {
      throw usage_error(located(m_p.file.string(), m_h.line,
                                "expected the hidden ranges to admit a case within max_elements (" +
                                    std::to_string(m_h.max_elements) + ") and the constraints, found none after " +
                                    std::to_string(k_draw_attempts) + " draws"));
    }
    return out;
  }

  // A shape with every extent >= 2 that its range allows (a symbol whose range is [1, 1] stays 1
  // in every shape and does not count). An extent of 1 (a row of one element, a single row) hides
  // what a distribution tests: a one-pass variance is exact on a row of one and wrong on any
  // offset row of two or more.
  [[nodiscard]] bool regular(const symbol_values& s) const {
    return std::all_of(m_h.ranges.begin(), m_h.ranges.end(), [&](const auto& r) {
      const auto it = s.find(r.symbol);
      return r.max < 2 || it == s.end() || it->second >= 2;
    });
  }

  std::uint64_t next() { return draw(m_key, m_counter++); }

 private:
  double uniform() { return uniform_co(next()); }

  std::int64_t largest_tensor(const symbol_values& s) const {
    std::int64_t largest = 0;
    for (const auto& d : resolve_inputs(m_p, s, m_variant))
      largest = std::max(largest, static_cast<std::int64_t>(d.numel()));
    for (const auto& d : resolve_outputs(m_p, s, m_variant))
      largest = std::max(largest, static_cast<std::int64_t>(d.numel()));
    return largest;
  }

  bool fits(const symbol_values& s) const {
    try {
      return largest_tensor(s) <= m_h.max_elements;
    } catch (const usage_error&) {
      return false;  // a dimension expression is non-positive here: not a valid case
    }
  }

  bool feasible(const symbol_values& s) const {
    if (!fits(s)) return false;
    std::map<std::string, double> values;
    for (const auto& [k, v] : s) values[k] = static_cast<double>(v);
    for (const auto& c : m_h.constraints) {
      try {
        if (evaluate_expression(c, values) == 0.0) return false;
      } catch (const usage_error&) {
        return false;  // e.g. division by zero at this point
      }
    }
    return true;
  }

  // Symbol i at exp(ln min + t_i (ln max - ln min)), rounded and clamped to its range.
  symbol_values at_fractions(const std::vector<double>& t) const {
    symbol_values s;
    for (std::size_t i = 0; i < m_h.ranges.size(); ++i) {
      const auto& r = m_h.ranges[i];
      std::int64_t v = r.min;
      if (t[i] >= 1.0) {
        v = r.max;
      } else if (t[i] > 0.0) {
        const double lo = det_ln(static_cast<double>(r.min));
        const double hi = det_ln(static_cast<double>(r.max));
        v = static_cast<std::int64_t>(std::floor(det_exp(lo + t[i] * (hi - lo)) + 0.5));
      }
      s[r.symbol] = std::clamp(v, r.min, r.max);
    }
    return s;
  }

  // The largest shape on the log-space diagonal from the mins towards the maxes of the symbols
  // in `grow` (the others stay at their min) that fits max_elements and the constraints. Tensor
  // sizes grow monotonically along the diagonal, so a bisection finds the boundary.
  std::optional<symbol_values> largest_fitting(const std::vector<bool>& grow) const {
    const auto point = [&](double lambda) {
      std::vector<double> t(grow.size());
      for (std::size_t i = 0; i < grow.size(); ++i) t[i] = grow[i] ? lambda : 0.0;
      return at_fractions(t);
    };
    double lambda = 1.0;
    if (!fits(point(1.0))) {
      double lo = 0.0;
      double hi = 1.0;
      for (int step = 0; step < k_bisect_steps; ++step) {
        const double mid = 0.5 * (lo + hi);
        (fits(point(mid)) ? lo : hi) = mid;
      }
      lambda = lo;
    }
    // Constraints need not be monotone: walk down until one holds.
    for (int step = 0; step < 64; ++step, lambda *= 0.97) {
      symbol_values s = point(lambda);
      if (feasible(s)) return s;
    }
    return std::nullopt;
  }

  // Sizes that break tiled kernels: next to a power of two (127, 129, 1023, 4097), always odd
  // and so never a multiple of 8, 16, 32 or 128, at a random fraction of the largest shape.
  std::optional<symbol_values> awkward(const std::optional<symbol_values>& biggest) {
    if (!biggest) return std::nullopt;
    const double shrink = 0.4 + 0.5 * uniform();
    std::vector<double> t(m_h.ranges.size());
    for (std::size_t i = 0; i < m_h.ranges.size(); ++i) {
      const auto& r = m_h.ranges[i];
      const double lo = det_ln(static_cast<double>(r.min));
      const double hi = det_ln(static_cast<double>(r.max));
      const double at = det_ln(static_cast<double>(biggest->at(r.symbol)));
      t[i] = hi > lo ? shrink * (at - lo) / (hi - lo) : 0.0;
    }
    symbol_values s = at_fractions(t);
    for (const auto& r : m_h.ranges) {
      std::int64_t& v = s[r.symbol];
      std::int64_t pow2 = 2;
      while (pow2 * 2 <= v) pow2 *= 2;
      if (v - pow2 > pow2 * 2 - v) pow2 *= 2;  // nearest power of two
      const bool up = (next() & 1) != 0;
      const std::int64_t first = up ? pow2 + 1 : pow2 - 1;
      const std::int64_t second = up ? pow2 - 1 : pow2 + 1;
      if (first >= r.min && first <= r.max)
        v = first;
      else if (second >= r.min && second <= r.max)
        v = second;
      else if (v % 2 == 0 && v - 1 >= r.min)
        v -= 1;
      else if (v % 2 == 0 && v + 1 <= r.max)
        v += 1;
    }
    if (feasible(s)) return s;
    // Shrinking an odd value by 2 keeps it odd and eventually fits.
    for (int step = 0; step < 4096; ++step) {
      bool changed = false;
      for (const auto& r : m_h.ranges) {
        std::int64_t& v = s[r.symbol];
        if (v - 2 >= r.min && v > 1) {
          v = std::max(r.min, v - std::max<std::int64_t>(2, (v / 8) & ~std::int64_t{1}));
          changed = true;
        }
      }
      if (feasible(s)) return s;
      if (!changed) break;
    }
    return std::nullopt;
  }

  // Each symbol log-uniform over its range: small sizes are as likely per decade as large ones.
  symbol_values random_draw() {
    symbol_values s;
    for (const auto& r : m_h.ranges) {
      const double lo = det_ln(static_cast<double>(r.min));
      const double hi = det_ln(static_cast<double>(r.max) + 1.0);
      const auto v = static_cast<std::int64_t>(std::floor(det_exp(lo + uniform() * (hi - lo))));
      s[r.symbol] = std::clamp(v, r.min, r.max);
    }
    return s;
  }

  const problem_spec& m_p;
  const hidden_spec& m_h;
  dtype m_variant;
  std::uint64_t m_key;
  std::uint64_t m_counter = 0;
};

std::string device_list(const problem_spec& p) {
  std::set<std::string> devices;
  for (const auto& [d, c] : p.bench_cases) devices.insert(d);
  for (const auto& [d, h] : p.hidden) devices.insert(d);
  std::string out;
  for (const auto& d : devices) out += (out.empty() ? "" : ", ") + d;
  return out.empty() ? "none" : out;
}

}  // namespace
}  // namespace detail

std::string_view case_kind_name(case_kind k) {
  switch (k) {
    case case_kind::public_case:
      return "public";
    case case_kind::hidden_case:
      return "hidden";
    case case_kind::bench_case:
      return "bench";
  }
  return "?";
}

std::string planned_case::shape_string() const {
  std::string out;
  const auto append = [&](const std::string& name, std::int64_t v) {
    if (!out.empty()) out += ' ';
    out += name + "=" + std::to_string(v);
  };
  std::set<std::string> done;
  for (const auto& name : symbol_order) {
    const auto it = symbols.find(name);
    if (it == symbols.end()) continue;
    append(name, it->second);
    done.insert(name);
  }
  for (const auto& [name, v] : symbols) {
    if (!done.count(name)) append(name, v);
  }
  return out;
}

planned_case make_case(const problem_spec& p, dtype variant, const symbol_values& s, const std::string& distribution,
                       std::uint64_t seed, std::string id, case_kind kind) {
  if (!is_known_distribution(distribution)) {
    throw usage_error("unknown distribution '" + distribution + "' for case " + id + " of " + p.name);
  }
  planned_case c;
  c.id = std::move(id);
  c.kind = kind;
  c.symbols = s;
  c.distribution = distribution;
  c.seed = seed;
  c.symbol_order = p.symbols;
  const auto inputs = resolve_inputs(p, s, variant);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    c.inputs.push_back(input_plan{inputs[i], p.inputs[i].distribution.value_or(""), p.inputs[i].range,
                                  p.inputs[i].structure, p.inputs[i].values});
  }
  c.outputs = resolve_outputs(p, s, variant);
  for (const auto& sc : p.scalars) c.scalars.push_back(sc.value);
  return c;
}

case_plan plan_cases(const problem_spec& p, const plan_options& o) {
  const auto bench_it = p.bench_cases.find(o.device);
  const auto hidden_it = p.hidden.find(o.device);
  if (bench_it == p.bench_cases.end() && hidden_it == p.hidden.end()) {
    throw usage_error(
        located(p.file.string(), 0,
                "problem " + p.name + " declares no cases for device '" + o.device +
                    "' (devices with [[bench.<device>]] and [hidden.<device>]: " + detail::device_list(p) + ")"));
  }
  case_plan plan;

  const std::uint64_t public_key = mix_seed(detail::k_public_key, detail::fnv1a(p.name));
  for (std::size_t i = 0; i < p.public_cases.size(); ++i) {
    const auto& cs = p.public_cases[i];
    plan.public_cases.push_back(
        make_case(p, o.variant, cs.symbols, cs.distribution, mix_seed(public_key, detail::k_salt_public + i),
                  cs.name.empty() ? "public-" + std::to_string(i) : cs.name, case_kind::public_case));
  }

  if (bench_it != p.bench_cases.end()) {
    for (std::size_t i = 0; i < bench_it->second.size(); ++i) {
      const auto& cs = bench_it->second[i];
      plan.bench_cases.push_back(
          make_case(p, o.variant, cs.symbols, cs.distribution, mix_seed(o.secret_seed, detail::k_salt_bench + i),
                    cs.name.empty() ? "bench-" + std::to_string(i) : cs.name, case_kind::bench_case));
    }
  }

  if (hidden_it != p.hidden.end()) {
    const hidden_spec& h = hidden_it->second;
    const int count = o.hidden_count >= 0 ? o.hidden_count : h.count;
    detail::hidden_planner planner(p, h, o.variant, mix_seed(o.secret_seed, detail::k_salt_hidden_shape));
    // Every declared distribution meets a regular shape, whatever the count asked for: a judge
    // whose --hidden can drop the offset or the wide inputs passes a softmax without its max.
    const std::vector<symbol_values> shapes = planner.shapes(count, h.distributions.size());
    // A shuffled cycle over the declared distributions, regular shapes first: each distribution
    // appears once per len(list) regular cases, and which shape meets which changes with the seed.
    std::vector<std::string> dists = h.distributions;
    for (std::size_t i = dists.size(); i > 1; --i) {
      std::swap(dists[i - 1], dists[planner.next() % i]);
    }
    std::vector<std::string> dist_of(shapes.size());
    std::size_t turn = 0;
    for (const bool regular_pass : {true, false})
      for (std::size_t i = 0; i < shapes.size(); ++i)
        if (planner.regular(shapes[i]) == regular_pass) dist_of[i] = dists[turn++ % dists.size()];
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      plan.hidden_cases.push_back(make_case(p, o.variant, shapes[i], dist_of[i],
                                            mix_seed(o.secret_seed, detail::k_salt_hidden_case + i),
                                            "hidden-" + std::to_string(i), case_kind::hidden_case));
    }
  }
  return plan;
}

std::uint64_t fresh_secret_seed() {
  std::uint64_t seed = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&seed);
  std::size_t got = 0;
  while (got < sizeof seed) {
    const ssize_t n = getrandom(bytes + got, sizeof seed - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw internal_error(std::string("getrandom failed: ") + std::strerror(errno));
    }
    got += static_cast<std::size_t>(n);
  }
  return seed;
}

}  // namespace kjudge
