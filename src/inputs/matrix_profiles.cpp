#include "inputs/matrix_profiles.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/error.hpp"
#include "inputs/distributions.hpp"

// Bit-reproducible values need a*b+c kept as two roundings (see inputs/counter_rng.hpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
#include "inputs/counter_rng.hpp"

namespace kjudge {
namespace detail {
namespace {

enum class profile_id { dense, uppertri, rankdef, nearrank, clustered, band, rowscale, nearcollinear, mixed };

struct profile_entry {
  std::string_view name;
  profile_id id;
  int cond;  // the column scaling's decades (qr_v2's `cond`)
};

constexpr profile_entry k_profiles[] = {
    {"cond1", profile_id::dense, 1},         {"cond2", profile_id::dense, 2},
    {"cond4", profile_id::dense, 4},         {"uppertri", profile_id::uppertri, 0},
    {"rankdef", profile_id::rankdef, 0},     {"nearrank", profile_id::nearrank, 0},
    {"clustered", profile_id::clustered, 0}, {"band", profile_id::band, 0},
    {"rowscale", profile_id::rowscale, 0},   {"nearcollinear", profile_id::nearcollinear, 0},
    {"mixed", profile_id::mixed, 2}};

// The stress profiles of a mixed batch, in label order 1..6 (label 0 is dense), and the labels'
// weights: dense 6 of 12, each stress profile 1 of 12.
constexpr profile_id k_stress[] = {profile_id::rankdef, profile_id::nearrank, profile_id::clustered,
                                   profile_id::band,    profile_id::rowscale, profile_id::nearcollinear};
constexpr std::uint64_t k_label_weights = 12;
constexpr std::uint64_t k_dense_weight = 6;

constexpr double k_log2_10 = 3.321928094887362;
constexpr double k_eps32 = 0x1p-23;

const profile_entry& find_profile(std::string_view name) {
  for (const auto& p : k_profiles)
    if (p.name == name) return p;
  throw usage_error("unknown matrix profile '" + std::string(name) + "'");
}

// 10^(-decades * k / (n - 1)), 1 for n = 1: torch.logspace(0, -decades, n)[k].
double log_step(int decades, std::size_t k, std::size_t n) {
  if (decades == 0 || n < 2) return 1.0;
  const double x = static_cast<double>(k) / static_cast<double>(n - 1);
  return det_exp2(-static_cast<double>(decades) * x * k_log2_10);
}

// linspace(from, to, n)[k].
double lin_step(double from, double to, std::size_t k, std::size_t n) {
  if (n < 2) return from;
  return from + (to - from) * (static_cast<double>(k) / static_cast<double>(n - 1));
}

// Uniform in [0, m) from the top 32 bits of x (multiply-high: no modulo bias beyond 2^-32).
std::size_t pick(std::uint64_t x, std::size_t m) {
  return static_cast<std::size_t>(((x >> 32) * static_cast<std::uint64_t>(m)) >> 32);
}

// One n x n matrix (row-major) in place: z holds its N(0,1) draw, e another, independent one.
class shaper {
 public:
  shaper(double* a, const double* e, std::size_t n) : m_a(a), m_e(e), m_n(n) {}

  void apply(profile_id id, int cond) {
    switch (id) {
      case profile_id::dense:
        break;
      case profile_id::uppertri:
        keep([](std::size_t i, std::size_t j) { return i <= j; });
        add_diagonal(1.0, 0.25);
        break;
      case profile_id::rankdef:
        rank_deficient(false);
        break;
      case profile_id::nearrank:
        rank_deficient(true);
        break;
      case profile_id::clustered:
        clustered();
        return;
      case profile_id::band: {
        const std::size_t w = std::max<std::size_t>(2, std::min<std::size_t>(32, m_n / 32));
        keep([w](std::size_t i, std::size_t j) { return (i > j ? i - j : j - i) <= w; });
        add_diagonal(1.0, 0.5);
        break;
      }
      case profile_id::rowscale:
        for (std::size_t i = 0; i < m_n; ++i) {
          const double s = log_step(std::max(cond, 4), i, m_n);
          for (std::size_t j = 0; j < m_n; ++j) m_a[i * m_n + j] *= s;
        }
        return;
      case profile_id::nearcollinear:
        for (std::size_t i = 0; i < m_n; ++i) {
          const double base = m_a[i * m_n];
          for (std::size_t j = 0; j < m_n; ++j) m_a[i * m_n + j] = base + 1e-4 * m_e[i * m_n + j];
        }
        break;
      case profile_id::mixed:
        throw usage_error("a mixed batch's matrices each take one profile");
    }
    scale_columns(cond);
  }

 private:
  template <typename Keep>
  void keep(Keep inside) {
    for (std::size_t i = 0; i < m_n; ++i)
      for (std::size_t j = 0; j < m_n; ++j)
        if (!inside(i, j)) m_a[i * m_n + j] = 0.0;
  }

  void add_diagonal(double from, double to) {
    for (std::size_t i = 0; i < m_n; ++i) m_a[i * m_n + i] += lin_step(from, to, i, m_n);
  }

  // Columns from r = max(1, floor(3n/4)) on: zero, or near copies of columns 0, 1, ...
  void rank_deficient(bool near) {
    const std::size_t r = std::max<std::size_t>(1, 3 * m_n / 4);
    for (std::size_t i = 0; i < m_n; ++i) {
      double* row = m_a + i * m_n;
      for (std::size_t j = r; j < m_n; ++j) row[j] = near ? row[j - r] + 1e-5 * m_e[i * m_n + j] : 0.0;
    }
  }

  void clustered() {
    std::vector<double> s(m_n, 1.0);
    for (std::size_t j = m_n / 2; j < m_n; ++j) s[j] = 4.0 * k_eps32;
    if (m_n >= 8)
      for (std::size_t j = m_n / 2 - 2; j < std::min(m_n, m_n / 2 + 2); ++j) s[j] = __builtin_sqrt(k_eps32);
    multiply_columns(s);
  }

  void scale_columns(int cond) {
    if (cond == 0) return;
    std::vector<double> s(m_n);
    for (std::size_t j = 0; j < m_n; ++j) s[j] = log_step(cond, j, m_n);
    multiply_columns(s);
  }

  void multiply_columns(const std::vector<double>& s) {
    for (std::size_t i = 0; i < m_n; ++i)
      for (std::size_t j = 0; j < m_n; ++j) m_a[i * m_n + j] *= s[j];
  }

  double* m_a;
  const double* m_e;
  std::size_t m_n;
};

std::vector<profile_id> mixed_labels(std::size_t batch, std::uint64_t seed) {
  const std::uint64_t key = mix_seed(seed, 0x6d697864ULL);  // "mixd"
  std::vector<profile_id> labels(batch);
  bool any_dense = false, all_dense = true;
  for (std::size_t b = 0; b < batch; ++b) {
    const std::size_t v = pick(draw(key, b), k_label_weights);
    labels[b] = v < k_dense_weight ? profile_id::dense : k_stress[v - k_dense_weight];
    any_dense = any_dense || labels[b] == profile_id::dense;
    all_dense = all_dense && labels[b] == profile_id::dense;
  }
  if (batch >= 2 && (!any_dense || all_dense)) {
    const std::size_t pos = pick(draw(key, batch), batch);
    labels[pos] = all_dense ? k_stress[pick(draw(key, batch + 1), std::size(k_stress))] : profile_id::dense;
  }
  return labels;
}

std::string_view label_name(profile_id id) {
  for (const auto& p : k_profiles)
    if (p.id == id && (id != profile_id::dense || p.cond == 2)) return p.name;
  return "dense";
}

std::size_t matrix_order(const tensor_desc& d) {
  const auto& sh = d.shape;
  if (sh.size() < 2 || sh[sh.size() - 1] != sh[sh.size() - 2])
    throw usage_error("a matrix profile needs square matrices in the last two dimensions; " + d.name + " has shape " +
                      d.shape_string());
  return static_cast<std::size_t>(sh.back());
}

void load(const host_tensor& t, std::size_t first, std::size_t count, double* out) {
  if (t.desc().type == dtype::f32) {
    const float* p = static_cast<const float*>(t.data()) + first;
    for (std::size_t i = 0; i < count; ++i) out[i] = p[i];
  } else {
    for (std::size_t i = 0; i < count; ++i) out[i] = t.get(first + i);
  }
}

void store(host_tensor& t, std::size_t first, std::size_t count, const double* in) {
  if (t.desc().type == dtype::f32) {
    float* p = static_cast<float*>(t.data()) + first;
    for (std::size_t i = 0; i < count; ++i) p[i] = static_cast<float>(in[i]);
  } else {
    for (std::size_t i = 0; i < count; ++i) t.set(first + i, in[i]);
  }
}

}  // namespace
}  // namespace detail

const std::vector<std::string>& matrix_profiles() {
  static const std::vector<std::string> k_names = [] {
    std::vector<std::string> v;
    for (const auto& p : detail::k_profiles) v.emplace_back(p.name);
    return v;
  }();
  return k_names;
}

bool is_matrix_profile(std::string_view name) {
  const auto& k = matrix_profiles();
  return std::find(k.begin(), k.end(), name) != k.end();
}

std::vector<std::string> mixed_profile_labels(std::size_t batch, std::uint64_t seed) {
  std::vector<std::string> out;
  for (const auto id : detail::mixed_labels(batch, seed)) out.emplace_back(detail::label_name(id));
  return out;
}

void fill_matrix_profile(host_tensor& t, std::string_view profile, std::uint64_t seed) {
  using namespace detail;
  const profile_entry& p = find_profile(profile);
  if (!is_float(t.desc().type)) throw usage_error("a matrix profile needs a floating tensor");
  const std::size_t n = matrix_order(t.desc());
  fill_distribution(t, "normal", seed, 0);
  if (n == 0 || t.numel() == 0) return;
  const std::size_t nn = n * n, batch = t.numel() / nn;
  const std::vector<profile_id> labels =
      p.id == profile_id::mixed ? mixed_labels(batch, seed) : std::vector<profile_id>(batch, p.id);
  const auto noisy = [](profile_id id) { return id == profile_id::nearrank || id == profile_id::nearcollinear; };
  // The second, independent N(0,1) draw: nearrank's and nearcollinear's noise.
  host_tensor extra;
  if (std::any_of(labels.begin(), labels.end(), noisy)) {
    extra = host_tensor(t.desc());
    fill_distribution(extra, "normal", mix_seed(seed, 0x6e6f6973ULL), 0);  // "nois"
  }
  std::vector<double> a(nn), e(nn);
  for (std::size_t b = 0; b < batch; ++b) {
    load(t, b * nn, nn, a.data());
    if (noisy(labels[b])) load(extra, b * nn, nn, e.data());
    shaper(a.data(), e.data(), n).apply(labels[b], p.cond);
    store(t, b * nn, nn, a.data());
  }
}

}  // namespace kjudge
