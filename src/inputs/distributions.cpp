#include "inputs/distributions.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/error.hpp"
#include "inputs/matrix_profiles.hpp"

// Bit-reproducible values need a*b+c kept as two roundings even where FMA exists (see
// inputs/counter_rng.hpp); C++ mode GCC would contract by default.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif
#include "inputs/counter_rng.hpp"

// Values are reproducible bit for bit across machines and compilers: see inputs/counter_rng.hpp.

namespace kjudge {
namespace detail {
namespace {

enum class dist_id { uniform, normal, negative, wide, offset, heavy, small, large };

dist_id parse_dist(std::string_view name) {
  static constexpr std::pair<std::string_view, dist_id> k_table[] = {
      {"uniform", dist_id::uniform}, {"normal", dist_id::normal}, {"negative", dist_id::negative},
      {"wide", dist_id::wide},       {"offset", dist_id::offset}, {"heavy", dist_id::heavy},
      {"small", dist_id::small},     {"large", dist_id::large}};
  for (const auto& [n, id] : k_table) {
    if (n == name) return id;
  }
  throw usage_error("unknown distribution '" + std::string(name) + "'");
}

// Affine map applied to normal draws: value = offset + scale * z, or -(|z| + 1e-3).
struct normal_shape {
  double offset = 0.0;
  double scale = 1.0;
  bool negative = false;
};

// Magnitude of "offset" data and the least noise that survives rounding next to it: 16 ulps of
// 1e4 in the tensor's dtype (1e4 * 2 * unit roundoff * 16). For f32/f64 that is below 1, so the
// noise is N(0,1); for bf16 (ulp 64 at 1e4) it is ~1250 and for f16 (ulp 8) ~156, since N(0,1)
// noise would round away and leave a constant tensor.
constexpr double k_offset = 1e4;
double offset_noise(dtype t) {
  return std::max(1.0, k_offset * 32.0 * dtype_epsilon(t));
}

normal_shape shape_of(dist_id id, int input_index, dtype t) {
  normal_shape sh;
  switch (id) {
    case dist_id::negative:
      sh.negative = true;
      break;
    // Even inputs sit at +1e4 and odd ones at -1e4, so x + bias (inputs 0 and 1) cancels.
    case dist_id::offset:
      sh.offset = (input_index % 2 == 0) ? k_offset : -k_offset;
      sh.scale = offset_noise(t);
      break;
    case dist_id::small:
      sh.scale = 1e-3;
      break;
    case dist_id::large:
      sh.scale = 1e3;
      break;
    default:
      break;
  }
  return sh;
}

// log10|v| of "wide" is uniform in [-4, 4]: 2^((8u - 4) log2 10).
constexpr double k_wide_decades = 8.0;
constexpr double k_wide_min_decade = -4.0;
constexpr double k_log2_10 = 3.321928094887362;
// "heavy" is clipped so that sums of a few thousand values stay finite in f32 and bf16.
constexpr double k_heavy_clip = 1e6;

// ---- double precision (f64 tensors): 53-bit draws, values from inputs/counter_rng.hpp -------

// Calls store(i, value) for i in [0, n).
template <typename Store>
void generate_f64(dist_id id, std::uint64_t key, std::size_t n, int input_index, Store&& store) {
  switch (id) {
    case dist_id::uniform:
      for (std::size_t i = 0; i < n; ++i) store(i, uniform_co(draw(key, i)));
      return;
    case dist_id::wide:
      // Sign from the lowest bit, magnitude from the top 53.
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t x = draw(key, i);
        const double mag = det_exp2((uniform_co(x) * k_wide_decades + k_wide_min_decade) * k_log2_10);
        store(i, (x & 1) ? -mag : mag);
      }
      return;
    case dist_id::heavy:
      // Student-t with 2 degrees of freedom by its closed-form inverse CDF
      // t = (2u - 1) / sqrt(2u(1 - u)).
      for (std::size_t i = 0; i < n; ++i) {
        const double u = uniform_oo(draw(key, i));
        const double t = (2.0 * u - 1.0) / __builtin_sqrt(2.0 * u * (1.0 - u));
        store(i, std::clamp(t, -k_heavy_clip, k_heavy_clip));
      }
      return;
    default:
      break;
  }
  const normal_shape sh = shape_of(id, input_index, dtype::f64);
  const auto shape = [&sh](double z) { return sh.negative ? -(__builtin_fabs(z) + 1e-3) : sh.offset + sh.scale * z; };
  const std::size_t pairs = n / 2;
  for (std::size_t j = 0; j < pairs; ++j) {
    double z0, z1;
    normal_pair(key, j, z0, z1);
    store(2 * j, shape(z0));
    store(2 * j + 1, shape(z1));
  }
  if (n % 2 != 0) {
    double z0, z1;
    normal_pair(key, pairs, z0, z1);
    store(n - 1, shape(z0));
  }
}

// ---- single precision (f32, bf16, f16 and integer tensors) ---------------------------------

// Values are produced in blocks of k_block with fixed-trip-count loops the compiler can
// vectorize, then stored; a block never straddles a multiple of 2^32 (k_block divides it), so
// the counter's high half is constant per block.
constexpr std::size_t k_block = 256;
constexpr std::size_t k_half = k_block / 2;

struct key32 {
  std::uint32_t k0;
  std::uint32_t k1;
};

void block_f32(dist_id id, key32 key, std::uint64_t base, const normal_shape& sh, float* out) {
  const std::uint32_t hi = static_cast<std::uint32_t>(base >> 32);
  const std::uint32_t k0 = key.k0 + hi * 0x85ebca6bu;
  const std::uint32_t k1 = key.k1;
  const std::uint32_t lo = static_cast<std::uint32_t>(base);
  switch (id) {
    case dist_id::uniform:
      for (std::uint32_t i = 0; i < k_block; ++i) out[i] = unit_co_f(hash32(lo + i, k0, k1));
      return;
    case dist_id::wide:
      for (std::uint32_t i = 0; i < k_block; ++i) {
        const std::uint32_t x = hash32(lo + i, k0, k1);
        const float mag =
            det_exp2_f((unit_co_f(x) * static_cast<float>(k_wide_decades) + static_cast<float>(k_wide_min_decade)) *
                       static_cast<float>(k_log2_10));
        out[i] = (x & 1u) != 0 ? -mag : mag;
      }
      return;
    case dist_id::heavy:
      // 24-bit u bounds |t| by 4096 (u = 2^-25); P(|t| > 4096) ~ 6e-8, so the tail is intact.
      for (std::uint32_t i = 0; i < k_block; ++i) {
        const float u = unit_oo_f(hash32(lo + i, k0, k1));
        out[i] = (2.0f * u - 1.0f) / det_sqrt_f(2.0f * u * (1.0f - u));
      }
      return;
    default:
      break;
  }
  // Box-Muller: pair p of the block draws counters base+2p and base+2p+1 and fills elements
  // base+p (cosine) and base+k_half+p (sine), so stores stay unit-stride.
  const float offset = static_cast<float>(sh.offset);
  const float scale = static_cast<float>(sh.scale);
  for (std::uint32_t p = 0; p < k_half; ++p) {
    const float u1 = unit_oc_f(hash32(lo + 2 * p, k0, k1));
    const float u2 = unit_co_f(hash32(lo + 2 * p + 1, k0, k1));
    const float r = det_sqrt_f(-2.0f * det_log_f(u1));
    float s, c;
    det_sincos_turn_f(u2, s, c);
    out[p] = r * c;
    out[k_half + p] = r * s;
  }
  if (sh.negative) {
    for (std::size_t i = 0; i < k_block; ++i) out[i] = -(__builtin_fabsf(out[i]) + 1e-3f);
  } else if (offset != 0.0f || scale != 1.0f) {
    for (std::size_t i = 0; i < k_block; ++i) out[i] = offset + scale * out[i];
  }
}

template <typename Store>
void generate_f32(dist_id id, std::uint64_t key, std::size_t n, int input_index, dtype t, Store&& store) {
  const key32 k{static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)};
  const normal_shape sh = shape_of(id, input_index, t);
  alignas(64) float buf[k_block];
  for (std::size_t base = 0; base < n; base += k_block) {
    block_f32(id, k, base, sh, buf);
    const std::size_t m = std::min(k_block, n - base);
    store(base, buf, m);
  }
}

// Element i of an integer draw over `r`: uniform_int of counter i's 32-bit draw, with the
// counter's high half folded into the key as block_f32 does (the device generator's rule too);
// store(i, value) takes each.
template <typename Store>
void draw_ints(key32 key, std::size_t n, const int_range& r, Store store) {
  const std::uint64_t span = static_cast<std::uint64_t>(r.hi) - static_cast<std::uint64_t>(r.lo) + 1;
  for (std::size_t base = 0; base < n; base += k_block) {
    const std::uint32_t hi = static_cast<std::uint32_t>(base >> 32);
    const std::uint32_t k0 = key.k0 + hi * 0x85ebca6bu;
    const std::uint32_t lo = static_cast<std::uint32_t>(base);
    const std::size_t m = std::min(k_block, n - base);
    for (std::uint32_t i = 0; i < m; ++i) store(base + i, uniform_int(hash32(lo + i, k0, key.k1), r.lo, span));
  }
}

// Integer and bool tensors: the draw stored in the tensor's own type.
template <typename T>
void generate_ints(key32 key, std::size_t n, const int_range& r, T* out) {
  draw_ints(key, n, r, [out](std::size_t i, std::int64_t v) { out[i] = static_cast<T>(v); });
}

// Discrete float tensors: element i is values[k], k drawn over the list's indices as an integer
// draw (so a prefix of a larger tensor holds the same values), rounded to the tensor's dtype.
void generate_values(key32 key, host_tensor& t, const std::vector<double>& values) {
  const int_range idx{0, static_cast<std::int64_t>(values.size()) - 1};
  if (t.desc().type == dtype::f32) {
    float* p = static_cast<float*>(t.data());
    draw_ints(key, t.numel(), idx, [p, &values](std::size_t i, std::int64_t k) {
      p[i] = static_cast<float>(values[static_cast<std::size_t>(k)]);
    });
  } else {
    draw_ints(key, t.numel(), idx,
              [&t, &values](std::size_t i, std::int64_t k) { t.set(i, values[static_cast<std::size_t>(k)]); });
  }
}

// float -> bf16 round-to-nearest-even; generated values are finite, so the NaN branch of
// float_to_bf16 is not needed in the hot loop.
inline std::uint16_t bf16_rne(float f) {
  const std::uint32_t u = float_bits(f);
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace
}  // namespace detail

const std::vector<std::string>& known_distributions() {
  static const std::vector<std::string> k_names = {"uniform", "normal", "negative", "wide",
                                                   "offset",  "heavy",  "small",    "large"};
  return k_names;
}

bool is_known_distribution(std::string_view name) {
  const auto& k = known_distributions();
  return std::find(k.begin(), k.end(), name) != k.end() || is_matrix_profile(name);
}

std::vector<std::string> all_distribution_names() {
  std::vector<std::string> v = known_distributions();
  const auto& m = matrix_profiles();
  v.insert(v.end(), m.begin(), m.end());
  return v;
}

int_range default_int_range(dtype t) {
  switch (t) {
    case dtype::boolean:
      return {0, 1};
    case dtype::u8:
      return {0, 255};
    default:
      return {-100, 100};
  }
}

std::string int_range_error(const int_range& r, dtype t) {
  const std::string where = " for a " + std::string(dtype_name(t)) + " tensor";
  if (is_float(t)) return "a range is only for integer and bool inputs, not" + where;
  if (r.lo > r.hi)
    return "the range's low bound " + std::to_string(r.lo) + " is above its high bound " + std::to_string(r.hi);
  std::int64_t min = 0, max = 0;
  switch (t) {
    case dtype::boolean:
      min = 0, max = 1;
      break;
    case dtype::u8:
      min = 0, max = 255;
      break;
    case dtype::i32:
      min = INT32_MIN, max = INT32_MAX;
      break;
    default:
      min = INT64_MIN, max = INT64_MAX;
      break;
  }
  if (r.lo < min || r.hi > max)
    return "the range [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "] is outside [" + std::to_string(min) +
           ", " + std::to_string(max) + "]" + where;
  if (static_cast<std::uint64_t>(r.hi) - static_cast<std::uint64_t>(r.lo) >= max_int_range_values)
    return "the range [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) +
           "] has more than 2^32 values (one 32-bit draw per element)";
  return {};
}

std::string float_values_error(const std::vector<double>& values, dtype t) {
  if (!is_float(t))
    return "values are only for floating inputs, not a " + std::string(dtype_name(t)) + " tensor (it takes a range)";
  if (values.empty()) return "no values given";
  if (values.size() > max_float_values)
    return std::to_string(values.size()) + " values, more than " + std::to_string(max_float_values);
  for (const double v : values)
    if (!std::isfinite(v)) return "the value " + std::to_string(v) + " is not finite";
  return {};
}

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t salt) {
  // Two splitmix64 finalizations so that no linear relation between (seed, salt) pairs
  // (e.g. seed + salt * golden) produces equal sub-seeds.
  return detail::splitmix_finalize(detail::splitmix_finalize(seed + detail::k_golden) ^
                                   (salt * 0xD1B54A32D192ED03ULL + 0x632BE59BD9B4E019ULL));
}

void fill_distribution(host_tensor& t, std::string_view distribution, std::uint64_t seed, int input_index,
                       const std::optional<int_range>& range, const std::vector<double>& values) {
  using namespace detail;
  // A matrix profile shapes a normal draw; integer tensors and value lists ignore the distribution.
  const bool profile = is_matrix_profile(distribution);
  if (profile && is_float(t.desc().type) && values.empty()) {
    fill_matrix_profile(t, distribution, seed);
    return;
  }
  const dist_id id = profile ? dist_id::normal : parse_dist(distribution);
  const std::uint64_t key = mix_seed(seed, 0x6b6a7564ULL);  // "kjud": distinct from callers' salts
  const std::size_t n = t.numel();
  if (!values.empty()) {
    if (const std::string err = float_values_error(values, t.desc().type); !err.empty()) throw usage_error(err);
    generate_values(key32{static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)}, t, values);
    return;
  }
  const bool is_uniform = id == dist_id::uniform;
  switch (t.desc().type) {
    case dtype::f64: {
      double* p = static_cast<double*>(t.data());
      generate_f64(id, key, n, input_index, [p](std::size_t i, double v) { p[i] = v; });
      return;
    }
    case dtype::f32: {
      float* p = static_cast<float*>(t.data());
      generate_f32(id, key, n, input_index, t.desc().type, [p](std::size_t base, const float* v, std::size_t m) {
        std::memcpy(p + base, v, m * sizeof(float));
      });
      return;
    }
    case dtype::bf16: {
      std::uint16_t* p = static_cast<std::uint16_t*>(t.data());
      generate_f32(id, key, n, input_index, t.desc().type,
                   [p, is_uniform](std::size_t base, const float* v, std::size_t m) {
                     for (std::size_t i = 0; i < m; ++i) p[base + i] = bf16_rne(v[i]);
                     // Rounding carries U[0,1) values above 1 - 2^-9 up to 1; keep the interval half-open.
                     if (is_uniform) {
                       for (std::size_t i = 0; i < m; ++i) p[base + i] = p[base + i] >= 0x3f80u ? 0x3f7fu : p[base + i];
                     }
                   });
      return;
    }
    case dtype::i32:
    case dtype::i64:
    case dtype::u8:
    case dtype::boolean: {
      const int_range r = range.value_or(default_int_range(t.desc().type));
      if (const std::string err = int_range_error(r, t.desc().type); !err.empty()) throw usage_error(err);
      const key32 k{static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)};
      switch (t.desc().type) {
        case dtype::i32:
          generate_ints(k, n, r, static_cast<std::int32_t*>(t.data()));
          break;
        case dtype::i64:
          generate_ints(k, n, r, static_cast<std::int64_t*>(t.data()));
          break;
        default:
          generate_ints(k, n, r, static_cast<std::uint8_t*>(t.data()));
          break;  // u8, bool (0/1)
      }
      return;
    }
    default: {                                                      // f16
      const double below_one = 1.0 - dtype_epsilon(t.desc().type);  // largest value under 1
      generate_f32(id, key, n, input_index, t.desc().type,
                   [&t, is_uniform, below_one](std::size_t base, const float* v, std::size_t m) {
                     for (std::size_t i = 0; i < m; ++i) {
                       t.set(base + i, v[i]);
                       if (is_uniform && t.get(base + i) >= 1.0) t.set(base + i, below_one);
                     }
                   });
      return;
    }
  }
}

std::optional<matrix_structure> parse_structure(std::string_view name) {
  if (name == "upper") return matrix_structure::upper;
  if (name == "lower") return matrix_structure::lower;
  if (name == "symmetric") return matrix_structure::symmetric;
  return std::nullopt;
}

std::string_view structure_name(matrix_structure s) {
  switch (s) {
    case matrix_structure::upper:
      return "upper";
    case matrix_structure::lower:
      return "lower";
    case matrix_structure::symmetric:
      return "symmetric";
    default:
      return "none";
  }
}

namespace {
std::size_t matrix_order(const tensor_desc& d) {
  const auto& sh = d.shape;
  if (sh.size() < 2 || sh[sh.size() - 1] != sh[sh.size() - 2])
    throw usage_error("a structured input needs square matrices in its last two dimensions; " + d.name + " has shape " +
                      d.shape_string());
  return static_cast<std::size_t>(sh.back());
}
}  // namespace

std::size_t mirror_index(std::size_t flat, const tensor_desc& d) {
  const std::size_t n = matrix_order(d);
  const std::size_t c = flat % n, r = (flat / n) % n, base = flat - (r * n + c);
  return base + c * n + r;
}

std::size_t structured_index(std::size_t flat, const tensor_desc& d, matrix_structure s) {
  if (s == matrix_structure::none || s == matrix_structure::symmetric) return flat;
  const std::size_t n = matrix_order(d);
  const std::size_t c = flat % n, r = (flat / n) % n;
  const bool in_zero_triangle = s == matrix_structure::upper ? r > c : c > r;
  return in_zero_triangle ? mirror_index(flat, d) : flat;
}

void apply_structure(host_tensor& t, matrix_structure s) {
  if (s == matrix_structure::none) return;
  const std::size_t n = matrix_order(t.desc());
  const std::size_t es = dtype_size(t.desc().type);
  auto* p = static_cast<std::byte*>(t.data());
  const std::size_t matrices = n == 0 ? 0 : t.numel() / (n * n);
  for (std::size_t m = 0; m < matrices; ++m) {
    std::byte* a = p + m * n * n * es;
    for (std::size_t r = 0; r < n; ++r)
      for (std::size_t c = 0; c < n; ++c) {
        if (r == c) continue;
        std::byte* e = a + (r * n + c) * es;
        if ((s == matrix_structure::upper && r > c) || (s == matrix_structure::lower && c > r))
          std::memset(e, 0, es);
        else if (s == matrix_structure::symmetric && r > c)
          std::memcpy(e, a + (c * n + r) * es, es);
      }
  }
}

std::vector<host_tensor> generate_inputs(const std::vector<input_plan>& inputs, std::string_view distribution,
                                         std::uint64_t seed) {
  std::vector<host_tensor> out;
  out.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    host_tensor t(inputs[i].desc);
    const std::string_view d = inputs[i].distribution.empty() ? distribution : std::string_view(inputs[i].distribution);
    fill_distribution(t, d, mix_seed(seed, i), static_cast<int>(i), inputs[i].range, inputs[i].values);
    apply_structure(t, inputs[i].structure);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace kjudge
