// Autotune template (docs/proposer.md, "autotune"): two-pass "online" softmax for the cpu
// backend, f32 and bf16 — a different algorithm family from softmax_rowwise.cpp. The first pass
// keeps, per lane, a running maximum and a running sum rescaled whenever the maximum grows
// (s = s * exp(m_old - m_new) + exp(x - m_new)), so the row is read twice instead of three times
// at the cost of a second exponential per element in the first pass.
//
// The first value of each parameter is the naive choice (libm expf, one lane).
//
// kj-param: POLY_EXP = 0, 1
// kj-param: LANES = 1, 8, 16
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

#ifndef POLY_EXP
#define POLY_EXP 0
#endif
#ifndef LANES
#define LANES 1
#endif
#ifndef KJ_AUTOTUNE_CONFIG
#define KJ_AUTOTUNE_CONFIG "POLY_EXP=0 LANES=1"
#endif

static inline float exp_of(float v) {
#if POLY_EXP
  return kjref::exp_f32(v);
#else
  return std::exp(v);
#endif
}

// One element into a lane's (max, sum). A lane that has seen nothing holds m = -inf, s = 0: its
// scale would be exp(-inf - -inf) = NaN. The exponent is replaced by -80 there (exp(-80) is a
// normal float, and it multiplies s = 0): vectorised libm exp computes both sides of a select,
// and a NaN or denormal argument sends a whole vector to its slow scalar path.
static inline void push(float v, float& m, float& s) {
  const float mn = v > m ? v : m;
  const float scale = exp_of(m == -INFINITY ? -80.0f : m - mn);
  s = s * scale + exp_of(v - mn);
  m = mn;
}

template <class IO>
static void row(const typename IO::storage* __restrict xr, typename IO::storage* __restrict yr, int64_t n) {
  const int64_t body = n - n % LANES;
  float m[LANES], s[LANES];
  for (int l = 0; l < LANES; ++l) {
    m[l] = -INFINITY;
    s[l] = 0.0f;
  }
  for (int64_t j = 0; j < body; j += LANES)
    for (int l = 0; l < LANES; ++l) push(IO::load(xr[j + l]), m[l], s[l]);
  for (int64_t j = body; j < n; ++j) push(IO::load(xr[j]), m[0], s[0]);
  float mx = m[0];
  for (int l = 1; l < LANES; ++l) mx = m[l] > mx ? m[l] : mx;
  float sum = 0.0f;
  for (int l = 0; l < LANES; ++l) sum += m[l] == -INFINITY ? 0.0f : s[l] * exp_of(m[l] - mx);
  const float inv = 1.0f / sum;
  for (int64_t j = 0; j < n; ++j) yr[j] = IO::store(exp_of(IO::load(xr[j]) - mx) * inv);
}

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = static_cast<const T*>(a->inputs[0].data);
  T* y = static_cast<T*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i) row<IO>(x + i * n, y + i * n, n);
  return kjref::status_ok;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m = 0, n = 0;
  if (a->n_inputs != 1 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_matrix_of(a->outputs[0], m, n))
    return kjref::status_bad_args;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return kjref::status_bad_dtype;
  if (!kjref::all_contiguous(a)) return kjref::status_bad_layout;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype, [&](auto io) { return run<decltype(io)>(a, m, n); });
}

KJ_EXPORT const char* kj_info(void) { return "family=online_2pass;notes=" KJ_AUTOTUNE_CONFIG; }
