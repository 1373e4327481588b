/* Helpers shared by the built-in references (problems/<name>/reference.cpp), the optimised
 * baselines (problems/<name>/baseline_fast.cpp) and the example candidates.
 *
 * Header-only C++ (static inline / templates), no dependencies beyond the standard library, so
 * that every candidate translation unit stays a single self-contained shared object.
 *
 * Contents:
 *   - bf16 <-> f32 conversion (round to nearest even, NaN kept NaN) and typed I/O traits so a
 *     kernel is written once as a template and instantiated for f32 and bf16 storage;
 *   - argument checks (shape, dtype, layout) that return a status instead of trusting the caller;
 *   - compensated summation (Neumaier, TwoSum/TwoProduct) for the float64 references;
 *   - branch-free float exp / erfc that GCC auto-vectorises at -O3 (libm's expf/erff calls are
 *     not vectorised without -ffast-math).
 */
#ifndef KJUDGE_REFERENCE_UTIL_H
#define KJUDGE_REFERENCE_UTIL_H

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kjudge/candidate.h"

namespace kjref {

/* kj_run status codes (0 = success; the judge reports any other value as runtime_error). */
inline constexpr int status_ok = 0;
inline constexpr int status_bad_args = 1;   /* counts, ranks or shapes do not match */
inline constexpr int status_bad_dtype = 2;  /* dtype this implementation does not support */
inline constexpr int status_bad_layout = 3; /* non-contiguous where contiguity is required */

/* ---------------------------------------------------------------- bf16 ---------------------- */

static inline float bf16_to_f32(uint16_t h) {
  return std::bit_cast<float>(static_cast<uint32_t>(h) << 16);
}

/* Round to nearest, ties to even. NaN stays NaN (quiet bit forced, so that truncating a
 * signalling NaN whose payload lives only in the low half cannot produce an Inf). Written
 * without branches so loops over it vectorise. */
static inline uint16_t f32_to_bf16(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const uint32_t nan = (u >> 16) | 0x0040u;
  const bool is_nan = (u & 0x7fffffffu) > 0x7f800000u;
  return static_cast<uint16_t>(is_nan ? nan : rounded);
}

/* Typed I/O: `storage` is the element type in memory; arithmetic is always in float. */
struct io_f32 {
  using storage = float;
  static constexpr kj_dtype dtype = KJ_F32;
  static inline float load(float v) { return v; }
  static inline float store(float v) { return v; }
};
struct io_bf16 {
  using storage = uint16_t;
  static constexpr kj_dtype dtype = KJ_BF16;
  static inline float load(uint16_t v) { return bf16_to_f32(v); }
  static inline uint16_t store(float v) { return f32_to_bf16(v); }
};

/* Calls f(io_f32{}) or f(io_bf16{}) according to `t`; other dtypes are not part of the suite. */
template <class F>
static inline int dispatch_f32_bf16(kj_dtype t, F&& f) {
  switch (t) {
    case KJ_F32:
      return f(io_f32{});
    case KJ_BF16:
      return f(io_bf16{});
    default:
      return status_bad_dtype;
  }
}

/* ---------------------------------------------------------------- argument checks ----------- */

static inline bool is_matrix(const kj_tensor& t, int64_t* rows, int64_t* cols) {
  if (t.ndim != 2 || (t.data == nullptr && t.shape[0] * t.shape[1] != 0)) return false;
  if (t.shape[0] < 0 || t.shape[1] < 0) return false;
  *rows = t.shape[0];
  *cols = t.shape[1];
  return true;
}

static inline bool is_matrix_of(const kj_tensor& t, int64_t rows, int64_t cols) {
  int64_t r = 0, c = 0;
  return is_matrix(t, &r, &c) && r == rows && c == cols;
}

static inline bool is_vector_of(const kj_tensor& t, int64_t n) {
  return t.ndim == 1 && t.shape[0] == n && (t.data != nullptr || n == 0);
}

/* Row-major contiguous; strides of extent-1 dimensions are irrelevant and not checked. */
static inline bool is_contiguous(const kj_tensor& t) {
  int64_t expect = 1;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.stride[d] != expect) return false;
    expect *= t.shape[d];
  }
  return true;
}

static inline bool same_dtype(const kj_args* a, kj_dtype t) {
  for (int32_t i = 0; i < a->n_inputs; ++i)
    if (a->inputs[i].dtype != t) return false;
  for (int32_t i = 0; i < a->n_outputs; ++i)
    if (a->outputs[i].dtype != t) return false;
  return true;
}

static inline bool all_contiguous(const kj_args* a) {
  for (int32_t i = 0; i < a->n_inputs; ++i)
    if (!is_contiguous(a->inputs[i])) return false;
  for (int32_t i = 0; i < a->n_outputs; ++i)
    if (!is_contiguous(a->outputs[i])) return false;
  return true;
}

static inline double scalar_or(const kj_args* a, int32_t i, double fallback) {
  return (a->scalars != nullptr && a->n_scalars > i) ? a->scalars[i] : fallback;
}

/* Element (i, j) of a rank-2 tensor / element i of a rank-1 tensor, honouring strides. */
template <class T>
static inline T* at2(const kj_tensor& t, int64_t i, int64_t j) {
  return static_cast<T*>(t.data) + i * t.stride[0] + j * t.stride[1];
}
template <class T>
static inline T* at1(const kj_tensor& t, int64_t i) {
  return static_cast<T*>(t.data) + i * t.stride[0];
}

/* ---------------------------------------------------------------- compensated arithmetic ---- */

/* Neumaier's improved Kahan sum: the error of every addition is carried exactly, so the result
 * is as if accumulated in twice the working precision (error ~ eps*|sum| + n*eps^2*sum|x_i|). */
struct neumaier_sum {
  double s = 0.0;
  double c = 0.0;
  inline void add(double x) {
    const double t = s + x;
    c += (std::fabs(s) >= std::fabs(x)) ? (s - t) + x : (x - t) + s;
    s = t;
  }
  inline double value() const { return s + c; }
};

/* Knuth's TwoSum: s + e == a + b exactly (no assumption on magnitudes). */
static inline void two_sum(double a, double b, double* s, double* e) {
  const double t = a + b;
  const double z = t - a;
  *e = (a - (t - z)) + (b - z);
  *s = t;
}

/* TwoProduct via FMA: p + e == a * b exactly (barring underflow). */
static inline void two_prod(double a, double b, double* p, double* e) {
  const double q = a * b;
  *e = std::fma(a, b, -q);
  *p = q;
}

/* ---------------------------------------------------------------- vectorisable float math -- */

/* exp(x) in float, branch-free: Cody-Waite reduction x = n*ln2 + r, |r| <= ln2/2, and the Cephes
 * degree-6 polynomial for e^r; at most 1.4 ulp (8.4e-8 relative) against double exp on 2^24
 * points of [-87.3, 88.7]. Results below FLT_MIN flush to 0,
 * x > 88.72 gives +Inf, NaN propagates. */
static inline float exp_f32(float x) {
  const float hi = 88.7228394f;  /* largest x with finite expf */
  const float lo = -87.3365479f; /* smallest x with a normal result */
  const float xc = x < lo ? lo : (x > hi ? hi : x);
  const float magic = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer in the low bits */
  const float t = xc * 1.44269504088896341f + magic;
  const float n = t - magic;
  const int32_t ni = std::bit_cast<int32_t>(t) - std::bit_cast<int32_t>(magic);
  float r = xc - n * 0.693359375f; /* ln2 split: the high part has few bits, so n*hi is exact */
  r = r - n * -2.12194440e-4f;
  const float r2 = r * r;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r2 + r + 1.0f;
  /* 2^n applied as two exact factors: n reaches 128 near `hi`, which one float cannot hold. */
  const int32_t n1 = ni >> 1;
  const float s1 = std::bit_cast<float>((n1 + 127) << 23);
  const float s2 = std::bit_cast<float>((ni - n1 + 127) << 23);
  float y = x > hi ? INFINITY : (p * s1) * s2;
  y = x < lo ? 0.0f : y;
  return x != x ? x : y;
}

/* erfc(z) for z >= 0 in float: Chebyshev-fitted form from Numerical Recipes (erfcc), fractional
 * error < 1.2e-7 for every z >= 0, plus float rounding. Unlike 1 - erff(z) it keeps full relative
 * accuracy in the tail, which is what GELU needs for negative inputs. Measured through
 * normal_cdf_f32: |Phi error| <= 2.1e-7 and |v * Phi error| <= 9.5e-8 * max(1, |v|) on
 * [-12, 12]; 0.5 * (1 + erff(v / sqrt 2)) has |Phi error| <= 6.1e-8. */
static inline float erfc_nonneg_f32(float z) {
  const float t = 1.0f / (1.0f + 0.5f * z);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  return t * exp_f32(p - z * z);
}

/* Phi(v) = 0.5 * (1 + erf(v / sqrt 2)), the standard normal CDF, branch-free. */
static inline float normal_cdf_f32(float v) {
  const float z = std::fabs(v) * 0.707106781186547524f;
  const float half_tail = 0.5f * erfc_nonneg_f32(z);
  return v < 0.0f ? half_tail : 1.0f - half_tail;
}

}  // namespace kjref

#endif /* KJUDGE_REFERENCE_UTIL_H */
