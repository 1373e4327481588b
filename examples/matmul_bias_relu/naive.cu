// Honest, naive matmul_bias_relu for the GPU: one thread per output element, the dot product
// read straight from global memory in k order (a's row is broadcast within a warp, b's column
// coalesced across it), float accumulation, then + bias and relu. No tiling, no tensor cores.
// Expected verdict: correct; far slower than the tiled reference and cuBLASLt.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

template <class T>
__global__ void mm_naive(const T* A, const T* B, const T* bias, T* C, int64_t m, int64_t n, int64_t k) {
  const int64_t col = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  const int64_t row = blockIdx.y;
  if (col >= n || row >= m) return;
  float acc = 0.0f;
  for (int64_t p = 0; p < k; ++p) acc += kjcu::to_f32(A[row * k + p]) * kjcu::to_f32(B[p * n + col]);
  const float v = acc + kjcu::to_f32(bias[col]);
  C[row * n + col] = kjcu::from_f32<T>(v < 0.0f ? 0.0f : v);
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m = 0, k = 0, k2 = 0, n = 0;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &k) ||
      !kjref::is_matrix(a->inputs[1], &k2, &n) || k2 != k || m > 65535)
    return kjref::status_bad_args;
  const dim3 grid(static_cast<unsigned>((n + 127) / 128), static_cast<unsigned>(m));
  const auto s = static_cast<cudaStream_t>(a->stream);
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    mm_naive<T><<<grid, 128, 0, s>>>(static_cast<const T*>(a->inputs[0].data), static_cast<const T*>(a->inputs[1].data),
                                     static_cast<const T*>(a->inputs[2].data), static_cast<T*>(a->outputs[0].data), m, n, k);
    return kjcu::launch_status();
  });
}

KJ_EXPORT const char* kj_info(void) { return "family=naive;notes=one thread per output, global-memory dot products"; }
