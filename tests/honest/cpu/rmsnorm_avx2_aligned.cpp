// Honest (rmsnorm): AVX2 intrinsics, 8 floats at a time with 4 independent accumulators; aligned
// loads where the row start is 32-byte aligned (the judge's buffers start on a page; rows of
// other lengths are not), unaligned otherwise, and a scalar tail. Falls back to plain loops
// without AVX2.
// Expected: ok, no rule.
#include <cmath>
#include <cstdint>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "kjudge/candidate.h"

static float sum_squares(const float* x, int64_t n) {
  int64_t j = 0;
  float s = 0.0f;
#if defined(__AVX2__)
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  const bool aligned = (reinterpret_cast<uintptr_t>(x) & 31) == 0;
  for (; j + 32 <= n; j += 32)
    for (int k = 0; k < 4; ++k) {
      const __m256 v = aligned ? _mm256_load_ps(x + j + 8 * k) : _mm256_loadu_ps(x + j + 8 * k);
      acc[k] = _mm256_fmadd_ps(v, v, acc[k]);
    }
  const __m256 t = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
  float lanes[8];
  _mm256_storeu_ps(lanes, t);
  for (float l : lanes) s += l;
#endif
  for (; j < n; ++j) s += x[j] * x[j];
  return s;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return 2;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const float eps = static_cast<float>(a->scalars[0]);
  for (int64_t i = 0; i < m; ++i) {
    const float r = 1.0f / std::sqrt(sum_squares(x + i * n, n) / static_cast<float>(n) + eps);
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = x[i * n + j] * r * w[j];
  }
  return 0;
}
