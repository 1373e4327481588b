// Autotune template (docs/proposer.md, "autotune"): online softmax for the cuda backend, another
// family than softmax_cuda_rowwise.cu. One statistics pass keeps a running (max, sum of
// exp(x - max)) per thread, rescaled when the max grows; the block combines the pairs; a second
// pass writes exp(x - max) / sum. f32 and bf16.
//
// kj-param: THREADS = 128, 512, 1024
// kj-param: VEC = 0, 1
// kj-param: SMEM_ROW = 0, 1
//
// SMEM_ROW keeps the row in shared memory as float between the passes (when it fits in 48 KiB),
// so x is read from memory once and the second pass never touches L2.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

#ifndef THREADS
#define THREADS 128
#endif
#ifndef VEC
#define VEC 0
#endif
#ifndef SMEM_ROW
#define SMEM_ROW 0
#endif
#ifndef KJ_AUTOTUNE_CONFIG
#define KJ_AUTOTUNE_CONFIG "THREADS=128 VEC=0 SMEM_ROW=0"
#endif

namespace {

constexpr int64_t smem_row_bytes = 48 * 1024;

struct ms {
  float m, s;
};

__device__ __forceinline__ ms combine(ms a, ms b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return ms{m, 0.0f};
  return ms{m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

__device__ __forceinline__ void add(ms& acc, float x) {
  if (x > acc.m) {
    acc.s = acc.s * expf(acc.m - x) + 1.0f;
    acc.m = x;
  } else {
    acc.s += expf(x - acc.m);
  }
}

__device__ ms block_combine(ms v) {
  __shared__ ms partial[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v = combine(v, ms{__shfl_xor_sync(0xffffffffu, v.m, o), __shfl_xor_sync(0xffffffffu, v.s, o)});
  __syncthreads();
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  ms r = lane < warps ? partial[lane] : ms{-INFINITY, 0.0f};
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    r = combine(r, ms{__shfl_xor_sync(0xffffffffu, r.m, o), __shfl_xor_sync(0xffffffffu, r.s, o)});
  return r;
}

template <class T, bool Vec, bool Smem>
__global__ void __launch_bounds__(THREADS) softmax_online(const T* __restrict__ x, T* __restrict__ y, int64_t m, int64_t n) {
  extern __shared__ float row_cache[];
  constexpr int vw = kjcu::vec16<T>::width;
  const int64_t step = Vec ? static_cast<int64_t>(blockDim.x) * vw : blockDim.x;
  const int64_t first = Vec ? static_cast<int64_t>(threadIdx.x) * vw : threadIdx.x;
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    const T* xr = x + i * n;
    T* yr = y + i * n;
    ms acc{-INFINITY, 0.0f};
    for (int64_t j = first; j < n; j += step) {
      if constexpr (Vec) {
        float v[vw];
        kjcu::load_vec(xr + j, v);
#pragma unroll
        for (int e = 0; e < vw; ++e) {
          add(acc, v[e]);
          if constexpr (Smem) row_cache[j + e] = v[e];
        }
      } else {
        const float v = kjcu::to_f32(xr[j]);
        add(acc, v);
        if constexpr (Smem) row_cache[j] = v;
      }
    }
    // block_combine's barriers also order the cache writes before the reads below (each thread
    // reads back only what it wrote itself anyway).
    const ms row = block_combine(acc);
    const float inv = 1.0f / row.s;
    for (int64_t j = first; j < n; j += step) {
      if constexpr (Vec) {
        float v[vw];
        if constexpr (Smem) {
#pragma unroll
          for (int e = 0; e < vw; ++e) v[e] = row_cache[j + e];
        } else {
          kjcu::load_vec(xr + j, v);
        }
#pragma unroll
        for (int e = 0; e < vw; ++e) v[e] = expf(v[e] - row.m) * inv;
        kjcu::store_vec(yr + j, v);
      } else {
        const float v = Smem ? row_cache[j] : kjcu::to_f32(xr[j]);
        yr[j] = kjcu::from_f32<T>(expf(v - row.m) * inv);
      }
    }
    if constexpr (Smem) __syncthreads();  // the next row overwrites the cache
  }
}

template <class T, bool Vec>
void launch(const T* x, T* y, int64_t m, int64_t n, cudaStream_t s) {
  const int64_t bytes = n * static_cast<int64_t>(sizeof(float));
  if (SMEM_ROW && bytes <= smem_row_bytes)
    softmax_online<T, Vec, true><<<kjcu::row_grid(m), THREADS, static_cast<size_t>(bytes), s>>>(x, y, m, n);
  else
    softmax_online<T, Vec, false><<<kjcu::row_grid(m), THREADS, 0, s>>>(x, y, m, n);
}

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m = 0, n = 0;
  if (a->n_inputs != 1 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n)) return kjref::status_bad_args;
  const auto s = static_cast<cudaStream_t>(a->stream);
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(a->inputs[0].data);
    T* y = static_cast<T*>(a->outputs[0].data);
    if (m == 0 || n == 0) return kjref::status_ok;
    if (VEC && kjcu::rows_vectorizable<T>(x, n) && kjcu::rows_vectorizable<T>(y, n))
      launch<T, true>(x, y, m, n, s);
    else
      launch<T, false>(x, y, m, n, s);
    return kjcu::launch_status();
  });
}

KJ_EXPORT const char* kj_info(void) { return "family=online-cuda;notes=" KJ_AUTOTUNE_CONFIG; }
