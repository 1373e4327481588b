// Honest fast rmsnorm for one core: the sum of squares runs in 16 independent float lanes
// (vectorisable without reassociating one serial sum; the pairwise lane combine is also more
// accurate), then one vectorised pass y = x * (r * weight). The row is re-read from L1/L2.
// Expected verdict: correct; faster than the scalar reference.
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

enum { LANES = 16 };

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n, float eps) {
  using T = typename IO::storage;
  const T* __restrict x = (const T*)a->inputs[0].data;
  const T* __restrict w = (const T*)a->inputs[1].data;
  T* __restrict y = (T*)a->outputs[0].data;
  const float inv_n = 1.0f / (float)n;
  const int64_t body = n - n % LANES;
  for (int64_t i = 0; i < m; ++i) {
    const T* xr = x + i * n;
    T* yr = y + i * n;
    float acc[LANES] = {};
    for (int64_t j = 0; j < body; j += LANES)
      for (int l = 0; l < LANES; ++l) {
        const float v = IO::load(xr[j + l]);
        acc[l] += v * v;
      }
    for (int64_t j = body; j < n; ++j) {
      const float v = IO::load(xr[j]);
      acc[j - body] += v * v;
    }
    for (int s = LANES / 2; s > 0; s /= 2)
      for (int l = 0; l < s; ++l) acc[l] += acc[l + s];
    const float r = 1.0f / std::sqrt(acc[0] * inv_n + eps);
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) yr[j] = IO::store(IO::load(xr[j]) * (r * IO::load(w[j])));
  }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 2 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_vector_of(a->inputs[1], n) || !kjref::is_matrix_of(a->outputs[0], m, n) ||
      !kjref::all_contiguous(a))
    return 1;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return 2;
  const float eps = (float)kjref::scalar_or(a, 0, 1e-6);
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run<decltype(io)>(a, m, n, eps); });
}

KJ_EXPORT const char* kj_info(void) {
  return "family=vector_lanes;notes=sum of squares in 16 lanes, single thread";
}
