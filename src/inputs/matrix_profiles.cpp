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

// A profile's name: one label for every matrix, or `mixed` (a label per matrix).
enum class profile_id { dense, uppertri, rankdef, nearrank, clustered, band, rowscale, nearcollinear, mixed };

profile_label label_of(profile_id id) {
  switch (id) {
    case profile_id::uppertri:
      return profile_label::uppertri;
    case profile_id::rankdef:
      return profile_label::rankdef;
    case profile_id::nearrank:
      return profile_label::nearrank;
    case profile_id::clustered:
      return profile_label::clustered;
    case profile_id::band:
      return profile_label::band;
    case profile_id::rowscale:
      return profile_label::rowscale;
    case profile_id::nearcollinear:
      return profile_label::nearcollinear;
    default:
      return profile_label::dense;
  }
}

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

matrix_profile_plan plan_matrix_profile(const tensor_desc& d, std::string_view profile, std::uint64_t seed) {
  using namespace detail;
  const profile_entry& p = find_profile(profile);
  matrix_profile_plan plan;
  plan.n = matrix_order(d);
  const std::size_t n = plan.n, nn = n * n;
  plan.batch = nn == 0 ? 0 : d.numel() / nn;
  plan.cond = p.cond;
  plan.labels.resize(plan.batch, label_of(p.id));
  if (p.id == profile_id::mixed) {
    const std::vector<profile_id> ids = mixed_labels(plan.batch, seed);
    std::transform(ids.begin(), ids.end(), plan.labels.begin(), label_of);
  }
  const auto uses = [&](profile_label l) {
    return std::find(plan.labels.begin(), plan.labels.end(), l) != plan.labels.end();
  };
  if (plan.cond != 0)
    for (std::size_t j = 0; j < n; ++j) plan.col_scale.push_back(log_step(plan.cond, j, n));
  if (uses(profile_label::rowscale))
    for (std::size_t i = 0; i < n; ++i) plan.row_scale.push_back(log_step(std::max(plan.cond, 4), i, n));
  if (uses(profile_label::clustered)) {
    // Columns j < n/2 unit, the rest 4 eps32, and for n >= 8 the four around n/2 sqrt(eps32).
    plan.clustered_scale.assign(n, 1.0);
    for (std::size_t j = n / 2; j < n; ++j) plan.clustered_scale[j] = 4.0 * k_eps32;
    if (n >= 8)
      for (std::size_t j = n / 2 - 2; j < std::min(n, n / 2 + 2); ++j)
        plan.clustered_scale[j] = __builtin_sqrt(k_eps32);
  }
  if (uses(profile_label::uppertri))
    for (std::size_t i = 0; i < n; ++i) plan.diag_upper.push_back(lin_step(1.0, 0.25, i, n));
  if (uses(profile_label::band))
    for (std::size_t i = 0; i < n; ++i) plan.diag_band.push_back(lin_step(1.0, 0.5, i, n));
  plan.rank = std::max<std::size_t>(1, 3 * n / 4);
  plan.band_w = std::max<std::size_t>(2, std::min<std::size_t>(32, n / 32));
  plan.needs_noise = std::any_of(plan.labels.begin(), plan.labels.end(), profile_needs_noise);
  plan.noise_seed = mix_seed(seed, 0x6e6f6973ULL);  // "nois"
  return plan;
}

profile_shape matrix_profile_plan::view() const {
  const auto ptr = [](const std::vector<double>& v) { return v.empty() ? nullptr : v.data(); };
  profile_shape s;
  s.col_scale = ptr(col_scale);
  s.row_scale = ptr(row_scale);
  s.clustered_scale = ptr(clustered_scale);
  s.diag_upper = ptr(diag_upper);
  s.diag_band = ptr(diag_band);
  s.n = n;
  s.rank = rank;
  s.band_w = band_w;
  s.cond = cond;
  return s;
}

void fill_matrix_profile(host_tensor& t, std::string_view profile, std::uint64_t seed) {
  using namespace detail;
  if (!is_float(t.desc().type)) throw usage_error("a matrix profile needs a floating tensor");
  const matrix_profile_plan plan = plan_matrix_profile(t.desc(), profile, seed);
  fill_distribution(t, "normal", seed, 0);
  const std::size_t n = plan.n, nn = n * n;
  if (nn == 0 || t.numel() == 0) return;
  host_tensor extra;  // the second, independent N(0,1) draw: nearrank's and nearcollinear's noise
  if (plan.needs_noise) {
    extra = host_tensor(t.desc());
    fill_distribution(extra, "normal", plan.noise_seed, 0);
  }
  const profile_shape shape = plan.view();
  std::vector<double> a(nn), e(nn);
  for (std::size_t b = 0; b < plan.batch; ++b) {
    const profile_label l = plan.labels[b];
    load(t, b * nn, nn, a.data());
    if (profile_needs_noise(l)) load(extra, b * nn, nn, e.data());
    std::vector<double> out(nn);
    for (std::size_t i = 0; i < n; ++i) {
      const double* row = a.data() + i * n;
      for (std::size_t j = 0; j < n; ++j)
        out[i * n + j] = shape_profile_element(shape, l, i, j, row[j], row[0],
                                               j >= plan.rank ? row[j - plan.rank] : 0.0, e[i * n + j]);
    }
    store(t, b * nn, nn, out.data());
  }
}

}  // namespace kjudge
