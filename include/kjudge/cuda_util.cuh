/* Helpers shared by the CUDA references (problems/<name>/reference.cu), the CUDA baselines and
 * the CUDA examples. Header-only; a candidate stays one self-contained source file.
 *
 *   - f32 / bf16 element access computing in float (bf16 stored as __nv_bfloat16, rounded to
 *     nearest even on store), and dispatch on kj_dtype;
 *   - deterministic warp and block reductions (fixed order: a call run twice on the same inputs
 *     gives the same bits);
 *   - a launch status for kj_run's return value.
 * Host-side argument checks come from reference_util.h (kjref::is_matrix, ...).
 */
#ifndef KJUDGE_CUDA_UTIL_CUH
#define KJUDGE_CUDA_UTIL_CUH

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

namespace kjcu {

using bf16 = __nv_bfloat16;

/* kj_run status for a CUDA error seen at launch (the judge reports nonzero as runtime_error). */
inline constexpr int status_cuda_error_base = 100;
static inline int launch_status() {
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? kjref::status_ok : status_cuda_error_base + static_cast<int>(e);
}

__device__ __forceinline__ float to_f32(float v) {
  return v;
}
__device__ __forceinline__ float to_f32(bf16 v) {
  return __bfloat162float(v);
}

template <class T>
__device__ __forceinline__ T from_f32(float v);
template <>
__device__ __forceinline__ float from_f32<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ bf16 from_f32<bf16>(float v) {
  return __float2bfloat16_rn(v);
}

/* Calls f(float{}) or f(bf16{}) according to t (the element type in memory). */
template <class F>
static inline int dispatch(kj_dtype t, F&& f) {
  switch (t) {
    case KJ_F32:
      return f(float{});
    case KJ_BF16:
      return f(bf16{});
    default:
      return kjref::status_bad_dtype;
  }
}

struct sum_op {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a + b;
  }
};
struct max_op {
  __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
  __device__ __forceinline__ double operator()(double a, double b) const { return fmax(a, b); }
};

template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T v, Op op) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

/* Block-wide reduction for blockDim.x a multiple of 32 (<= 1024); every thread gets the result.
 * Safe to call repeatedly in a row (the first barrier protects the previous call's scratch). */
template <class T, class Op>
__device__ __forceinline__ T block_reduce(T v, Op op, T identity) {
  __shared__ T partial[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  v = warp_reduce(v, op);
  __syncthreads();
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  T r = lane < warps ? partial[lane] : identity;
  return warp_reduce(r, op);
}

template <class T>
__device__ __forceinline__ T block_sum(T v) {
  return block_reduce(v, sum_op{}, T(0));
}
template <class T>
__device__ __forceinline__ T block_max(T v) {
  return block_reduce(v, max_op{}, T(-INFINITY));
}

/* 16-byte vectors: 4 floats or 8 bf16 per load/store, converted to/from float. The pointer must
 * be 16-byte aligned (a row start is when the row's byte length is a multiple of 16). */
template <class T>
struct vec16 {
  static constexpr int width = 16 / static_cast<int>(sizeof(T));
};
template <class T>
__device__ __forceinline__ void load_vec(const T* p, float (&v)[vec16<T>::width]) {
  const uint4 u = __ldg(reinterpret_cast<const uint4*>(p));
  const T* e = reinterpret_cast<const T*>(&u);
#pragma unroll
  for (int i = 0; i < vec16<T>::width; ++i) v[i] = to_f32(e[i]);
}
template <class T>
__device__ __forceinline__ void store_vec(T* p, const float (&v)[vec16<T>::width]) {
  uint4 u;
  T* e = reinterpret_cast<T*>(&u);
#pragma unroll
  for (int i = 0; i < vec16<T>::width; ++i) e[i] = from_f32<T>(v[i]);
  *reinterpret_cast<uint4*>(p) = u;
}
/* True when rows of n elements of T starting at `base` can be read with 16-byte vectors. */
template <class T>
static inline bool rows_vectorizable(const void* base, int64_t n) {
  return reinterpret_cast<uintptr_t>(base) % 16 == 0 && (n * static_cast<int64_t>(sizeof(T))) % 16 == 0;
}

/* Grid size for `rows` independent rows of one block each (rows beyond loop in the kernel). */
static inline unsigned int row_grid(int64_t rows) {
  const int64_t cap = 65535LL * 16;
  return static_cast<unsigned int>(rows < 1 ? 1 : (rows > cap ? cap : rows));
}

}  // namespace kjcu

#endif /* KJUDGE_CUDA_UTIL_CUH */
