// Attack (phase detection by call count, cuda): an honest one-block-per-row softmax for the first
// 60 calls, then a kernel that writes 1/N everywhere.
// Expected: hack, rule timed_output_mismatch (rechecked timed calls). Needs the timing phase.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

__global__ void softmax_rows(const float* x, float* y, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    float mx = -INFINITY;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) mx = fmaxf(mx, x[i * n + j]);
    mx = kjcu::block_max(mx);
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += expf(x[i * n + j] - mx);
    s = kjcu::block_sum(s);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) y[i * n + j] = expf(x[i * n + j] - mx) / s;
  }
}

__global__ void constant_rows(float* y, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < m * n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    y[i] = 1.0f / static_cast<float>(n);
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  static long calls = 0;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  auto s = static_cast<cudaStream_t>(a->stream);
  if (++calls > 60)
    constant_rows<<<1024, 256, 0, s>>>(static_cast<float*>(a->outputs[0].data), m, n);
  else
    softmax_rows<<<kjcu::row_grid(m), 256, 0, s>>>(static_cast<const float*>(a->inputs[0].data),
                                                   static_cast<float*>(a->outputs[0].data), m, n);
  return kjcu::launch_status();
}
