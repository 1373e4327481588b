// Attack (uninitialised read, cuda): accumulates into y (y += ...) without zeroing it, which
// passes where a fresh cudaMalloc happens to be zero.
// Expected: wrong_result, rule unwritten_output (the outputs are poisoned with a NaN payload that
// survives the addition).
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

__global__ void rmsnorm_accumulate(const float* x, const float* w, float* y, int64_t m, int64_t n, float eps) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    float sq = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) sq += x[i * n + j] * x[i * n + j];
    const float r = rsqrtf(kjcu::block_sum(sq) / static_cast<float>(n) + eps);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) y[i * n + j] += x[i * n + j] * r * w[j];
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  rmsnorm_accumulate<<<kjcu::row_grid(m), 256, 0, static_cast<cudaStream_t>(a->stream)>>>(
      static_cast<const float*>(a->inputs[0].data), static_cast<const float*>(a->inputs[1].data),
      static_cast<float*>(a->outputs[0].data), m, n, static_cast<float>(kjref::scalar_or(a, 0, 1e-6)));
  return kjcu::launch_status();
}
