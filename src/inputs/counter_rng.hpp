// Counter-based random numbers shared by the input generator and the case planner: every value
// is a function of (key, counter) built from +, -, *, /, sqrt, floor and bit operations only.
// Those are correctly rounded in IEEE arithmetic, so values agree bit for bit across machines,
// compilers and libm versions (no libm transcendental and no implementation-defined std::
// distribution is involved). log, exp2 and sin/cos are fixed polynomials accurate to ~1e-15
// (double) or ~1e-8 (float) relative, below the rounding to a tensor's dtype.
// Includers must keep a*b+c as two roundings: GCC contracts to FMA by default in C++ where the
// target has FMA, so they set "#pragma GCC optimize("fp-contract=off")" before including this.
// __builtin_sqrt/floor rather than the std:: wrappers: the wrappers are compiled with other
// options than the pragma's and GCC refuses to inline across that difference.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace kjudge::detail {

inline constexpr std::uint64_t k_golden = 0x9E3779B97F4A7C15ULL;

inline std::uint64_t splitmix_finalize(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Counter-based: the draw for element counter `c` depends only on (key, c), so any element can
// be regenerated without the others and a tensor of n elements is a prefix of a larger one.
inline std::uint64_t draw(std::uint64_t key, std::uint64_t c) {
  return splitmix_finalize(key + (c + 1) * k_golden);
}

// [0, 1) with 53 random bits.
inline double uniform_co(std::uint64_t x) {
  return static_cast<double>(x >> 11) * 0x1p-53;
}
// (0, 1]: safe for log.
inline double uniform_oc(std::uint64_t x) {
  return static_cast<double>((x >> 11) + 1) * 0x1p-53;
}
// (0, 1) strictly: safe for the Student-t inverse CDF.
inline double uniform_oo(std::uint64_t x) {
  return (static_cast<double>(x >> 11) + 0.5) * 0x1p-53;
}

// Natural log of a positive normal double: x = m * 2^e with m in [sqrt(1/2), sqrt(2)), then
// log(m) = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.1716; the series to s^19 errs < 3e-16.
inline double det_log(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, 8);
  int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  bits = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
  double m;
  std::memcpy(&m, &bits, 8);
  const bool big = m > 1.4142135623730951;
  m = big ? m * 0.5 : m;
  e = big ? e + 1 : e;
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double p = 1.0 / 19.0;
  p = p * s2 + 1.0 / 17.0;
  p = p * s2 + 1.0 / 15.0;
  p = p * s2 + 1.0 / 13.0;
  p = p * s2 + 1.0 / 11.0;
  p = p * s2 + 1.0 / 9.0;
  p = p * s2 + 1.0 / 7.0;
  p = p * s2 + 1.0 / 5.0;
  p = p * s2 + 1.0 / 3.0;
  p = p * s2 + 1.0;
  return static_cast<double>(e) * 0.6931471805599453 + 2.0 * s * p;
}

// 2^y for |y| < 1000: 2^n * e^(f ln2) with f in [-0.5, 0.5]; Taylor to degree 13 errs < 2e-17.
inline double det_exp2(double y) {
  const double n = __builtin_floor(y + 0.5);
  const double g = (y - n) * 0.6931471805599453;
  double p = 1.0 / 6227020800.0;  // 1/13!
  p = p * g + 1.0 / 479001600.0;
  p = p * g + 1.0 / 39916800.0;
  p = p * g + 1.0 / 3628800.0;
  p = p * g + 1.0 / 362880.0;
  p = p * g + 1.0 / 40320.0;
  p = p * g + 1.0 / 5040.0;
  p = p * g + 1.0 / 720.0;
  p = p * g + 1.0 / 120.0;
  p = p * g + 1.0 / 24.0;
  p = p * g + 1.0 / 6.0;
  p = p * g + 0.5;
  p = p * g + 1.0;
  p = p * g + 1.0;
  const std::uint64_t scale_bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(n) + 1023) << 52;
  double scale;
  std::memcpy(&scale, &scale_bits, 8);
  return p * scale;
}

// sin and cos of 2*pi*u for u in [0, 1): quadrant q = round(4u), phi in [-pi/4, pi/4];
// Taylor series to phi^15 / phi^16 err < 5e-17.
inline void det_sincos_turn(double u, double& sin_out, double& cos_out) {
  const double t = u * 4.0;
  const double q = __builtin_floor(t + 0.5);
  const double phi = (t - q) * 1.5707963267948966;
  const double p2 = phi * phi;
  double s = -1.0 / 1307674368000.0;  // -1/15!
  s = s * p2 + 1.0 / 6227020800.0;
  s = s * p2 - 1.0 / 39916800.0;
  s = s * p2 + 1.0 / 362880.0;
  s = s * p2 - 1.0 / 5040.0;
  s = s * p2 + 1.0 / 120.0;
  s = s * p2 - 1.0 / 6.0;
  s = s * p2 + 1.0;
  s = s * phi;
  double c = 1.0 / 20922789888000.0;  // 1/16!
  c = c * p2 - 1.0 / 87178291200.0;
  c = c * p2 + 1.0 / 479001600.0;
  c = c * p2 - 1.0 / 3628800.0;
  c = c * p2 + 1.0 / 40320.0;
  c = c * p2 - 1.0 / 720.0;
  c = c * p2 + 1.0 / 24.0;
  c = c * p2 - 0.5;
  c = c * p2 + 1.0;
  const int quadrant = static_cast<int>(q) & 3;
  const bool swap = (quadrant & 1) != 0;
  const double sv = swap ? c : s;
  const double cv = swap ? s : c;
  sin_out = (quadrant == 2 || quadrant == 3) ? -sv : sv;
  cos_out = (quadrant == 1 || quadrant == 2) ? -cv : cv;
}

// Box-Muller on draws 2j and 2j+1: two independent N(0,1) values for elements 2j and 2j+1.
inline void normal_pair(std::uint64_t key, std::uint64_t j, double& z0, double& z1) {
  const double u1 = uniform_oc(draw(key, 2 * j));
  const double u2 = uniform_co(draw(key, 2 * j + 1));
  const double r = __builtin_sqrt(-2.0 * det_log(u1));
  double s, c;
  det_sincos_turn(u2, s, c);
  z0 = r * c;
  z1 = r * s;
}

}  // namespace kjudge::detail

namespace kjudge::detail {

// Single-precision generator for f32/bf16/f16 tensors: 32-bit draws and float polynomials are
// cheap enough to vectorize (no 64-bit multiplies or integer->double conversions), which keeps
// generation at a few ns per element. Values are exact functions of (key, counter) as above.

// Two rounds of a 32-bit integer hash (Wellons' "lowbias32" constants) keyed by 64 bits; the
// counter's high half folds into the first key word so counters beyond 2^32 stay distinct.
inline std::uint32_t hash32(std::uint32_t c, std::uint32_t k0, std::uint32_t k1) {
  std::uint32_t x = c * 0x9E3779B9u + k0;
  x ^= x >> 16;
  x *= 0x21f0aaadu;
  x ^= x >> 15;
  x *= 0x735a2d97u;
  x ^= x >> 15;
  x ^= k1;
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// An integer uniform over [lo, lo + span - 1], span <= 2^32, from a 32-bit draw: the high word
// of draw * span (multiply-shift; each value's probability is within 1/2^32 of 1/span). Integer
// arithmetic only, so cuda/generate.cu's copy gives the same values.
inline std::int64_t uniform_int(std::uint32_t x, std::int64_t lo, std::uint64_t span) {
  return lo + static_cast<std::int64_t>((static_cast<std::uint64_t>(x) * span) >> 32);
}

// 24 random bits; the int32 conversion is exact and vectorizes (cvtdq2ps).
inline float unit_co_f(std::uint32_t x) {
  return static_cast<float>(static_cast<std::int32_t>(x >> 8)) * 0x1p-24f;
}
inline float unit_oc_f(std::uint32_t x) {
  return static_cast<float>(static_cast<std::int32_t>(x >> 8) + 1) * 0x1p-24f;
}
inline float unit_oo_f(std::uint32_t x) {
  return (static_cast<float>(static_cast<std::int32_t>(x >> 8)) + 0.5f) * 0x1p-24f;
}

inline std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// sqrt of x >= 0 by three Newton steps on 1/sqrt from the classic bit-level first guess:
// relative error ~1e-7, deterministic, and unlike sqrtf never a libm call (GCC keeps sqrtf a
// call, for errno, unless the whole build has -fno-math-errno), so loops using it vectorize.
inline float det_sqrt_f(float x) {
  float y = bits_float(0x5f3759dfu - (float_bits(x) >> 1));
  const float half = 0.5f * x;
  y = y * (1.5f - half * y * y);
  y = y * (1.5f - half * y * y);
  y = y * (1.5f - half * y * y);
  return x * y;
}

// log of a positive normal float; atanh series to s^9 errs < 1e-9 relative.
inline float det_log_f(float x) {
  const std::uint32_t b = float_bits(x);
  std::int32_t e = static_cast<std::int32_t>(b >> 23) - 127;
  float m = bits_float((b & 0x007fffffu) | 0x3f800000u);
  // m in [sqrt2, 2): halve it (exact, exponent - 1) and count one more power of two.
  const std::int32_t big = m > 1.41421356f ? 1 : 0;
  m = bits_float(float_bits(m) - (static_cast<std::uint32_t>(big) << 23));
  e += big;
  const float s = (m - 1.0f) / (m + 1.0f);
  const float s2 = s * s;
  float p = 1.0f / 9.0f;
  p = p * s2 + 1.0f / 7.0f;
  p = p * s2 + 1.0f / 5.0f;
  p = p * s2 + 1.0f / 3.0f;
  p = p * s2 + 1.0f;
  return static_cast<float>(e) * 0.693147180559945f + 2.0f * s * p;
}

// 2^y for |y| < 120; Taylor of e^g to degree 7 on |g| <= ln2/2 errs < 3e-9.
inline float det_exp2_f(float y) {
  const std::int32_t n = static_cast<std::int32_t>(y + 128.5f) - 128;  // floor(y + 0.5)
  const float g = (y - static_cast<float>(n)) * 0.693147180559945f;
  float p = 1.0f / 5040.0f;
  p = p * g + 1.0f / 720.0f;
  p = p * g + 1.0f / 120.0f;
  p = p * g + 1.0f / 24.0f;
  p = p * g + 1.0f / 6.0f;
  p = p * g + 0.5f;
  p = p * g + 1.0f;
  p = p * g + 1.0f;
  return p * bits_float(static_cast<std::uint32_t>(n + 127) << 23);
}

// sin and cos of 2*pi*u, u in [0, 1): Taylor to phi^9 / phi^8 on |phi| <= pi/4 errs < 3e-8.
inline void det_sincos_turn_f(float u, float& sin_out, float& cos_out) {
  const float t = u * 4.0f;
  // t >= 0: truncation is floor, and the same on every machine (lround's rounding mode is not
  // part of the bit-identity contract of this file).
  const std::int32_t q = static_cast<std::int32_t>(t + 0.5f);  // NOLINT(bugprone-incorrect-roundings)
  const float phi = (t - static_cast<float>(q)) * 1.57079632679490f;
  const float p2 = phi * phi;
  float s = 1.0f / 362880.0f;
  s = s * p2 - 1.0f / 5040.0f;
  s = s * p2 + 1.0f / 120.0f;
  s = s * p2 - 1.0f / 6.0f;
  s = s * p2 + 1.0f;
  s = s * phi;
  float c = 1.0f / 40320.0f;
  c = c * p2 - 1.0f / 720.0f;
  c = c * p2 + 1.0f / 24.0f;
  c = c * p2 - 0.5f;
  c = c * p2 + 1.0f;
  // Quadrant rotation with bit masks (exact, and if-conversion-free so the loop vectorizes):
  // odd quadrants swap sin and cos; the sign bit flips for sin in quadrants 2, 3 and for cos
  // in quadrants 1, 2.
  const std::uint32_t swap = 0u - static_cast<std::uint32_t>(q & 1);
  const std::uint32_t sb = float_bits(s);
  const std::uint32_t cb = float_bits(c);
  const std::uint32_t sv = (cb & swap) | (sb & ~swap);
  const std::uint32_t cv = (sb & swap) | (cb & ~swap);
  sin_out = bits_float(sv ^ (static_cast<std::uint32_t>(q & 2) << 30));
  cos_out = bits_float(cv ^ (static_cast<std::uint32_t>((q + 1) & 2) << 30));
}

}  // namespace kjudge::detail
