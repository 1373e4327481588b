// GPU behaviour test: an honest softmax that allocates a 64 MiB scratch buffer with cudaMalloc
// and synchronises the device inside every call. Expected verdict: correct (ok_not_faster); its
// checked calls' traces show the 64 MiB allocation (alloc_peak_bytes) and its samples are timed
// without the hold kernel after two timed-out holds ("hold": "off").
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

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m = 0, n = 0;
  if (!kjref::is_matrix(a->inputs[0], &m, &n) || a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  void* scratch = nullptr;
  if (cudaMalloc(&scratch, 64u << 20) != cudaSuccess) return 1;
  softmax_rows<<<kjcu::row_grid(m), 256, 0, static_cast<cudaStream_t>(a->stream)>>>(
      static_cast<const float*>(a->inputs[0].data), static_cast<float*>(a->outputs[0].data), m, n);
  const int st = kjcu::launch_status();
  cudaDeviceSynchronize();
  cudaFree(scratch);
  return st;
}
