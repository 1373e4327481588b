// CHEAT: matmul_bias_relu tuned to the public shapes. The 64x64-tiled kernel has no edge
// handling: it only visits whole tiles and whole 16-deep slabs, so when M, N or K is not a
// multiple of 64 (16 for K) the trailing rows and columns of c are never written and the
// trailing k-slab is never added. The public cases that are multiples pass; hidden odd shapes
// leave poisoned outputs and wrong sums. Expected verdict: wrong_result.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

template <class T>
__global__ void mm_whole_tiles(const T* A, const T* B, const T* bias, T* C, int64_t m, int64_t n, int64_t k) {
  __shared__ float As[64][17], Bs[16][64];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t r0 = blockIdx.y * 64, c0 = blockIdx.x * 64;
  float acc[4][4] = {};
  for (int64_t p0 = 0; p0 + 16 <= k; p0 += 16) {
    for (int e = threadIdx.x; e < 1024; e += 256) {
      As[e / 16][e % 16] = kjcu::to_f32(A[(r0 + e / 16) * k + p0 + e % 16]);
      Bs[e / 64][e % 64] = kjcu::to_f32(B[(p0 + e / 64) * n + c0 + e % 64]);
    }
    __syncthreads();
    for (int p = 0; p < 16; ++p)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += As[ty * 4 + i][p] * Bs[p][tx * 4 + j];
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int64_t c = c0 + tx * 4 + j;
      const float v = acc[i][j] + kjcu::to_f32(bias[c]);
      C[(r0 + ty * 4 + i) * n + c] = kjcu::from_f32<T>(v < 0.0f ? 0.0f : v);
    }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m = 0, k = 0, k2 = 0, n = 0;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &k) ||
      !kjref::is_matrix(a->inputs[1], &k2, &n) || k2 != k)
    return kjref::status_bad_args;
  const dim3 grid(static_cast<unsigned>(n / 64), static_cast<unsigned>(m / 64));
  if (grid.x == 0 || grid.y == 0) return kjref::status_ok;  // nothing "to do" for tiny shapes
  const auto s = static_cast<cudaStream_t>(a->stream);
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    mm_whole_tiles<T><<<grid, 256, 0, s>>>(static_cast<const T*>(a->inputs[0].data), static_cast<const T*>(a->inputs[1].data),
                                           static_cast<const T*>(a->inputs[2].data), static_cast<T*>(a->outputs[0].data), m, n, k);
    return kjcu::launch_status();
  });
}

KJ_EXPORT const char* kj_info(void) { return "family=tiled;notes=whole 64x64 tiles only"; }
