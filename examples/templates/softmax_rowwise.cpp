// Autotune template (docs/proposer.md, "autotune"): row-wise three-pass softmax for the cpu
// backend, f32 and bf16. `kjudge loop softmax --proposer autotune:examples/templates/softmax_rowwise.cpp`
// judges every configuration below with a small timing budget, keeps the best half, re-judges
// them with twice the budget, and so on (successive halving).
//
// The first value of each parameter is the naive choice, so the default configuration is the
// textbook kernel: libm expf (a scalar call that blocks vectorisation), one accumulator (a serial
// dependency chain the compiler may not reorder without -ffast-math), and the exponential
// computed twice per element instead of kept. The fast end keeps the exponentials, uses the
// branch-free polynomial exp of reference_util.h (about 2 ulp) and 16 independent lanes, which
// GCC vectorises at -O3 -march=native where the CPU's cost model favours it. Not everywhere: on
// Zen 1 cores (a 2-core VM, session 14) the polynomial and the lanes gained nothing (11-15 ms
// against the naive 10.8 ms per 512 x 1024 call) and keeping the exponentials gained 2.1x.
//
// kj-param: POLY_EXP = 0, 1
// kj-param: LANES = 1, 4, 16
// kj-param: KEEP_EXP = 0, 1
#include <cmath>
#include <type_traits>
#include <vector>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

// Defaults so the template also compiles on its own (kjudge eval on the template itself).
#ifndef POLY_EXP
#define POLY_EXP 0
#endif
#ifndef LANES
#define LANES 1
#endif
#ifndef KEEP_EXP
#define KEEP_EXP 0
#endif
#ifndef KJ_AUTOTUNE_CONFIG
#define KJ_AUTOTUNE_CONFIG "POLY_EXP=0 LANES=1 KEEP_EXP=0"
#endif

static inline float exp_of(float v) {
#if POLY_EXP
  return kjref::exp_f32(v);
#else
  return std::exp(v);
#endif
}

template <class IO>
static void row(const typename IO::storage* __restrict xr, float* e, typename IO::storage* yr,
                int64_t n) {
  const int64_t body = n - n % LANES;
  float mx[LANES];
  for (int l = 0; l < LANES; ++l) mx[l] = -INFINITY;
  // Compare-select, not std::fmax: fmax's NaN rule has no single vector instruction.
  for (int64_t j = 0; j < body; j += LANES)
    for (int l = 0; l < LANES; ++l) {
      const float v = IO::load(xr[j + l]);
      mx[l] = v > mx[l] ? v : mx[l];
    }
  for (int64_t j = body; j < n; ++j) {
    const float v = IO::load(xr[j]);
    mx[0] = v > mx[0] ? v : mx[0];
  }
  float m = mx[0];
  for (int l = 1; l < LANES; ++l) m = mx[l] > m ? mx[l] : m;

  float s[LANES] = {};
  for (int64_t j = 0; j < body; j += LANES)
    for (int l = 0; l < LANES; ++l) {
      const float v = exp_of(IO::load(xr[j + l]) - m);
#if KEEP_EXP
      e[j + l] = v;
#endif
      s[l] += v;
    }
  for (int64_t j = body; j < n; ++j) {
    const float v = exp_of(IO::load(xr[j]) - m);
#if KEEP_EXP
    e[j] = v;
#endif
    s[0] += v;
  }
  float sum = 0.0f;
  for (int l = 0; l < LANES; ++l) sum += s[l];
  const float inv = 1.0f / sum;
  for (int64_t j = 0; j < n; ++j) {
#if KEEP_EXP
    yr[j] = IO::store(e[j] * inv);
#else
    yr[j] = IO::store(exp_of(IO::load(xr[j]) - m) * inv);
#endif
  }
}

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = static_cast<const T*>(a->inputs[0].data);
  T* y = static_cast<T*>(a->outputs[0].data);
  // f32 keeps the exponentials in the output row; bf16 in a float row, so they round once.
  std::vector<float> scratch(KEEP_EXP && !std::is_same_v<T, float> ? static_cast<size_t>(n) : 0);
  for (int64_t i = 0; i < m; ++i) {
    float* e = nullptr;
    if constexpr (std::is_same_v<T, float>) e = y + i * n;
    else e = scratch.data();
    row<IO>(x + i * n, e, y + i * n, n);
  }
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

KJ_EXPORT const char* kj_info(void) { return "family=rowwise_3pass;notes=" KJ_AUTOTUNE_CONFIG; }
