// Optimised CPU baseline for layernorm: y = (x - mean) / sqrt(var + eps) * weight + bias per row.
//
// Corrected two-pass statistics (Chan, Golub & LeVeque; Higham, Accuracy and Stability, 1.9):
// pass 1 gives the float mean m; pass 2 sums d = x - m and d^2, and c = mean(d) corrects both
// the variance and the centring, y = (d - c) * rstd * weight + bias. On offset data
// (x = 1e4 + noise) the float mean alone is off by up to half an ulp of 1e4 (5e-4), which a
// large weight turns into an output error of several units; d is exact there (Sterbenz) and
// c recovers the lost bits, so the result is as accurate as a double-precision mean.
// Each reduction runs in `lanes` independent float accumulators that the compiler maps onto
// vector registers (a sequential float sum cannot be vectorised without reassociation), combined
// pairwise at the end. A row is re-read from L1/L2 for the second pass and the normalisation.
// Rows are split across OpenMP threads. Requires row-major contiguous tensors.
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

namespace {

constexpr double default_eps = 1e-5;
constexpr int lanes = 16;  // one AVX-512 register, two AVX2 registers
typedef float lanes_t __attribute__((vector_size(lanes * sizeof(float))));

// Explicit vector accumulators: with plain float[16] arrays GCC 12 emits a shuffle-heavy
// partial vectorisation of the f32 variant that runs about 3x slower.
template <class IO>
inline lanes_t load_lanes(const typename IO::storage* p) {
  float t[lanes];
  for (int l = 0; l < lanes; ++l) t[l] = IO::load(p[l]);
  lanes_t v;
  __builtin_memcpy(&v, t, sizeof v);
  return v;
}

inline float lane_sum(lanes_t v) {
  float acc[lanes];
  __builtin_memcpy(acc, &v, sizeof acc);
  for (int w = lanes / 2; w > 0; w /= 2)
    for (int l = 0; l < w; ++l) acc[l] += acc[l + w];
  return acc[0];
}

template <class IO>
int run_typed(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = static_cast<const T*>(a->inputs[0].data);
  const T* w = static_cast<const T*>(a->inputs[1].data);
  const T* b = static_cast<const T*>(a->inputs[2].data);
  T* y = static_cast<T*>(a->outputs[0].data);
  const float eps = static_cast<float>(kjref::scalar_or(a, 0, default_eps));
  const float inv_n = 1.0f / static_cast<float>(n);
  const int64_t n_body = n - n % lanes;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; ++i) {
    const T* xr = x + i * n;
    T* yr = y + i * n;
    lanes_t s = {};
    for (int64_t j = 0; j < n_body; j += lanes) s += load_lanes<IO>(xr + j);
    float s_tail = 0.0f;
    for (int64_t j = n_body; j < n; ++j) s_tail += IO::load(xr[j]);
    const float mean = (lane_sum(s) + s_tail) * inv_n;
    lanes_t sd = {}, sq = {};
    for (int64_t j = 0; j < n_body; j += lanes) {
      const lanes_t d = load_lanes<IO>(xr + j) - mean;
      sd += d;
      sq += d * d;
    }
    float d_tail = 0.0f, q_tail = 0.0f;
    for (int64_t j = n_body; j < n; ++j) {
      const float d = IO::load(xr[j]) - mean;
      d_tail += d;
      q_tail += d * d;
    }
    const float c = (lane_sum(sd) + d_tail) * inv_n;
    const float var = (lane_sum(sq) + q_tail) * inv_n - c * c;
    const float rstd = 1.0f / std::sqrt((var > 0.0f ? var : 0.0f) + eps);
#pragma omp simd
    for (int64_t j = 0; j < n; ++j)
      yr[j] = IO::store(((IO::load(xr[j]) - mean) - c) * rstd * IO::load(w[j]) + IO::load(b[j]));
  }
  return kjref::status_ok;
}

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a == nullptr || a->n_inputs != 3 || a->n_outputs != 1) return kjref::status_bad_args;
  int64_t m = 0, n = 0;
  if (!kjref::is_matrix(a->inputs[0], &m, &n) || !kjref::is_vector_of(a->inputs[1], n) ||
      !kjref::is_vector_of(a->inputs[2], n) || !kjref::is_matrix_of(a->outputs[0], m, n))
    return kjref::status_bad_args;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return kjref::status_bad_dtype;
  if (!kjref::all_contiguous(a)) return kjref::status_bad_layout;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run_typed<decltype(io)>(a, m, n); });
}

KJ_EXPORT const char* kj_info(void) {
  return "family=baseline_fast;notes=corrected two-pass statistics in 16 vector lanes, OpenMP over rows";
}
