// Honest (softmax, cuda): online softmax per thread (running max and rescaled sum), the
// per-thread pairs merged across the block in shared memory, then one write pass; one block per
// row.
// Expected: ok, no rule.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

__global__ void softmax_online(const float* x, float* y, int64_t m, int64_t n) {
  __shared__ float smax[256], ssum[256];
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    float mx = -INFINITY, s = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const float v = x[i * n + j];
      if (v > mx) {
        s = s * expf(mx - v) + 1.0f;
        mx = v;
      } else {
        s += expf(v - mx);
      }
    }
    smax[threadIdx.x] = mx;
    ssum[threadIdx.x] = s;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
      if (threadIdx.x < stride) {
        const float m1 = smax[threadIdx.x], m2 = smax[threadIdx.x + stride];
        const float mm = fmaxf(m1, m2);
        const float s1 = m1 == -INFINITY ? 0.0f : ssum[threadIdx.x] * expf(m1 - mm);
        const float s2 = m2 == -INFINITY ? 0.0f : ssum[threadIdx.x + stride] * expf(m2 - mm);
        smax[threadIdx.x] = mm;
        ssum[threadIdx.x] = s1 + s2;
      }
      __syncthreads();
    }
    const float row_max = smax[0], inv = 1.0f / ssum[0];
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) y[i * n + j] = expf(x[i * n + j] - row_max) * inv;
    __syncthreads();
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  softmax_online<<<kjcu::row_grid(m), 256, 0, static_cast<cudaStream_t>(a->stream)>>>(
      static_cast<const float*>(a->inputs[0].data), static_cast<float*>(a->outputs[0].data), m, n);
  return kjcu::launch_status();
}
