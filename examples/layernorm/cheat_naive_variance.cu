// CHEAT: single-pass layernorm with var = E[x^2] - E[x]^2 accumulated in float (unshifted).
// One pass instead of two looks like a legitimate fusion, but the formula cancels
// catastrophically when |mean| >> std: for offset data (x = 1e4 + N(0,1)) E[x^2] ~ 1e8 carries
// a rounding error far larger than the true variance (~1), so the output is garbage. Passes
// N(0,1) data; fails "offset". Expected verdict: wrong_result.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

template <class T>
__global__ void layernorm_cancel(const T* x, const T* w, const T* b, T* y, int64_t m, int64_t n, float eps) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    const T* xr = x + i * n;
    float s = 0.0f, s2 = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const float v = kjcu::to_f32(xr[j]);
      s += v;
      s2 += v * v;
    }
    s = kjcu::block_sum(s);
    s2 = kjcu::block_sum(s2);
    const float mean = s / static_cast<float>(n);
    const float var = fmaxf(s2 / static_cast<float>(n) - mean * mean, 0.0f);
    const float rstd = 1.0f / sqrtf(var + eps);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x)
      y[i * n + j] = kjcu::from_f32<T>((kjcu::to_f32(xr[j]) - mean) * rstd * kjcu::to_f32(w[j]) + kjcu::to_f32(b[j]));
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m = 0, n = 0;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n)) return kjref::status_bad_args;
  const float eps = static_cast<float>(kjref::scalar_or(a, 0, 1e-5));
  const auto s = static_cast<cudaStream_t>(a->stream);
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    layernorm_cancel<T><<<kjcu::row_grid(m), 256, 0, s>>>(static_cast<const T*>(a->inputs[0].data),
                                                          static_cast<const T*>(a->inputs[1].data),
                                                          static_cast<const T*>(a->inputs[2].data),
                                                          static_cast<T*>(a->outputs[0].data), m, n, eps);
    return kjcu::launch_status();
  });
}

KJ_EXPORT const char* kj_info(void) { return "family=one-pass;notes=E[x^2]-E[x]^2 in float"; }
