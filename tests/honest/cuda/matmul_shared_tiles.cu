// Honest (matmul_bias_relu, cuda): classic 32 x 32 shared-memory tiling, bias and ReLU fused in
// the epilogue, ragged edges guarded.
// Expected: ok, no rule.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

constexpr int TILE = 32;

__global__ void matmul_tiles(const float* A, const float* B, const float* bias, float* C, int64_t m, int64_t n, int64_t k) {
  __shared__ float as[TILE][TILE], bs[TILE][TILE + 1];
  const int64_t row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int64_t p0 = 0; p0 < k; p0 += TILE) {
    as[threadIdx.y][threadIdx.x] = (row < m && p0 + threadIdx.x < k) ? A[row * k + p0 + threadIdx.x] : 0.0f;
    bs[threadIdx.y][threadIdx.x] = (p0 + threadIdx.y < k && col < n) ? B[(p0 + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < TILE; ++p) acc += as[threadIdx.y][p] * bs[p][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) {
    const float v = acc + bias[col];
    C[row * n + col] = v > 0.0f ? v : 0.0f;
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  const int64_t m = a->inputs[0].shape[0], k = a->inputs[0].shape[1], n = a->inputs[1].shape[1];
  const dim3 block(TILE, TILE), grid(static_cast<unsigned>((n + TILE - 1) / TILE), static_cast<unsigned>((m + TILE - 1) / TILE));
  matmul_tiles<<<grid, block, 0, static_cast<cudaStream_t>(a->stream)>>>(
      static_cast<const float*>(a->inputs[0].data), static_cast<const float*>(a->inputs[1].data),
      static_cast<const float*>(a->inputs[2].data), static_cast<float*>(a->outputs[0].data), m, n, k);
  return kjcu::launch_status();
}
