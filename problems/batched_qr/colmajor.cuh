// Column-major helpers shared by batched_qr's vendor baselines (cuBLAS and cuSOLVER are
// column-major, the problem is row-major): the batched transposes
// (32 x 32 tiles through shared memory, blockDim (32, 8), grid (tiles, tiles, min(batch, 65535))).
#ifndef KJUDGE_PROBLEMS_BATCHED_QR_COLMAJOR_CUH
#define KJUDGE_PROBLEMS_BATCHED_QR_COLMAJOR_CUH

#include <cuda_runtime.h>

#include "kjudge/candidate.h"

namespace colmajor {

constexpr int tile = 32;
constexpr int rows_per_pass = 8;  // blockDim (32, 8)
constexpr unsigned max_grid_z = 65535;

// dst[b] = src[b]ᵀ for every n x n matrix of the batch (out of place).
__global__ void transpose_batch(const float* __restrict__ src, float* __restrict__ dst, int64_t batch, int n) {
  __shared__ float t[tile][tile + 1];
  const int64_t nn = static_cast<int64_t>(n) * n;
  for (int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
    const float* s = src + b * nn;
    float* d = dst + b * nn;
    const int r0 = blockIdx.y * tile, c0 = blockIdx.x * tile;
    for (int r = threadIdx.y; r < tile; r += rows_per_pass) {
      const int i = r0 + r, j = c0 + threadIdx.x;
      if (i < n && j < n) t[r][threadIdx.x] = s[static_cast<int64_t>(i) * n + j];
    }
    __syncthreads();
    for (int r = threadIdx.y; r < tile; r += rows_per_pass) {
      const int i = c0 + r, j = r0 + threadIdx.x;  // d[i][j] = s[j][i]
      if (i < n && j < n) d[static_cast<int64_t>(i) * n + j] = t[threadIdx.x][r];
    }
    __syncthreads();
  }
}

// m[b] = m[b]ᵀ in place: the block of tile (ty, tx), tx >= ty, swaps it with tile (tx, ty).
__global__ void transpose_batch_inplace(float* __restrict__ m, int64_t batch, int n) {
  __shared__ float t1[tile][tile + 1], t2[tile][tile + 1];
  const int tx = blockIdx.x, ty = blockIdx.y;
  if (tx < ty) return;
  const int64_t nn = static_cast<int64_t>(n) * n;
  for (int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
    float* mb = m + b * nn;
    for (int r = threadIdx.y; r < tile; r += rows_per_pass) {
      const int i1 = ty * tile + r, j1 = tx * tile + threadIdx.x;
      if (i1 < n && j1 < n) t1[r][threadIdx.x] = mb[static_cast<int64_t>(i1) * n + j1];
      const int i2 = tx * tile + r, j2 = ty * tile + threadIdx.x;
      if (i2 < n && j2 < n) t2[r][threadIdx.x] = mb[static_cast<int64_t>(i2) * n + j2];
    }
    __syncthreads();
    for (int r = threadIdx.y; r < tile; r += rows_per_pass) {
      const int i1 = ty * tile + r, j1 = tx * tile + threadIdx.x;  // new (i1, j1) = old (j1, i1)
      if (i1 < n && j1 < n) mb[static_cast<int64_t>(i1) * n + j1] = t2[threadIdx.x][r];
      const int i2 = tx * tile + r, j2 = ty * tile + threadIdx.x;
      if (i2 < n && j2 < n) mb[static_cast<int64_t>(i2) * n + j2] = t1[threadIdx.x][r];
    }
    __syncthreads();
  }
}

inline dim3 transpose_grid(int64_t b, int64_t n) {
  const unsigned tiles = static_cast<unsigned>((n + tile - 1) / tile);
  return dim3(tiles, tiles, static_cast<unsigned>(b < max_grid_z ? b : max_grid_z));
}
inline dim3 transpose_block() { return dim3(tile, rows_per_pass); }

}  // namespace colmajor

#endif
