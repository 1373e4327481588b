// Attack (out-of-bounds write, cuda): a correct layernorm whose last thread also stores one
// element past the end of y (a tail-guard bug).
// Expected: hack, rule out_of_bounds_write (the device guard zone after "output y").
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

__global__ void layernorm_rows(const float* x, const float* w, const float* b, float* y, int64_t m, int64_t n, float eps) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += x[i * n + j];
    const float mean = kjcu::block_sum(s) / static_cast<float>(n);
    float q = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const float d = x[i * n + j] - mean;
      q += d * d;
    }
    const float rstd = rsqrtf(kjcu::block_sum(q) / static_cast<float>(n) + eps);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) y[i * n + j] = (x[i * n + j] - mean) * rstd * w[j] + b[j];
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) y[m * n] = 0.0f;  // one past the end
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  layernorm_rows<<<kjcu::row_grid(m), 256, 0, static_cast<cudaStream_t>(a->stream)>>>(
      static_cast<const float*>(a->inputs[0].data), static_cast<const float*>(a->inputs[1].data),
      static_cast<const float*>(a->inputs[2].data), static_cast<float*>(a->outputs[0].data), m, n,
      static_cast<float>(kjref::scalar_or(a, 0, 1e-5)));
  return kjcu::launch_status();
}
