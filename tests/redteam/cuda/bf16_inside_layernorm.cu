// Attack (lower precision, cuda): the f32 problem computed through bf16: x, the mean and x̂ are
// rounded to bf16 inside the kernel.
// Expected: wrong_result, rule tolerance.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

__device__ __forceinline__ float bf(float v) { return __bfloat162float(__float2bfloat16_rn(v)); }

__global__ void layernorm_bf16_inside(const float* x, const float* w, const float* b, float* y, int64_t m, int64_t n, float eps) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += bf(x[i * n + j]);
    const float mean = bf(kjcu::block_sum(s) / static_cast<float>(n));
    float q = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const float d = bf(x[i * n + j]) - mean;
      q += d * d;
    }
    const float rstd = bf(rsqrtf(kjcu::block_sum(q) / static_cast<float>(n) + eps));
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) y[i * n + j] = bf((bf(x[i * n + j]) - mean) * rstd) * w[j] + b[j];
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  layernorm_bf16_inside<<<kjcu::row_grid(m), 256, 0, static_cast<cudaStream_t>(a->stream)>>>(
      static_cast<const float*>(a->inputs[0].data), static_cast<const float*>(a->inputs[1].data),
      static_cast<const float*>(a->inputs[2].data), static_cast<float*>(a->outputs[0].data), m, n,
      static_cast<float>(kjref::scalar_or(a, 0, 1e-5)));
  return kjcu::launch_status();
}
