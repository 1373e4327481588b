// GPU fault test: a correct softmax that also writes one float past the end of y. Expected
// verdict: hack, rule out_of_bounds_write (the guard zone after "output y" changed).
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
    if (i == m - 1 && threadIdx.x == 0) y[m * n] = 0.0f;  // one element past the end
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m = 0, n = 0;
  if (!kjref::is_matrix(a->inputs[0], &m, &n) || a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  softmax_rows<<<kjcu::row_grid(m), 256, 0, static_cast<cudaStream_t>(a->stream)>>>(
      static_cast<const float*>(a->inputs[0].data), static_cast<float*>(a->outputs[0].data), m, n);
  return kjcu::launch_status();
}
