// GPU behaviour test (--sanitize initcheck): a correct softmax that also reads a cudaMalloc'd
// buffer nobody wrote, and lets what it read decide nothing unless it is one exact value — an
// uninitialised read that happens to pass every correctness check. Expected: ok without
// --sanitize; wrong_result, rule sanitizer, with --sanitize initcheck.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

__global__ void softmax_rows(const float* x, const float* junk, float* y, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    float mx = -INFINITY;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) mx = fmaxf(mx, x[i * n + j]);
    mx = kjcu::block_max(mx);
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += expf(x[i * n + j] - mx);
    s = kjcu::block_sum(s);
    // The uninitialised read: one float per row from memory never written.
    const float bias = junk[(i * 64 + threadIdx.x) % (1 << 20)] == 1234.5f ? 1.0f : 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) y[i * n + j] = expf(x[i * n + j] - mx) / s + bias;
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m = 0, n = 0;
  if (!kjref::is_matrix(a->inputs[0], &m, &n) || a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  static float* junk = nullptr;  // 4 MiB, allocated once, never written
  if (junk == nullptr && cudaMalloc(&junk, sizeof(float) << 20) != cudaSuccess) return 1;
  softmax_rows<<<kjcu::row_grid(m), 256, 0, static_cast<cudaStream_t>(a->stream)>>>(
      static_cast<const float*>(a->inputs[0].data), junk, static_cast<float*>(a->outputs[0].data), m, n);
  return kjcu::launch_status();
}
