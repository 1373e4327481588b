// Autotune template (docs/proposer.md, "autotune"): three-pass softmax for the cuda backend
// (max, sum of exp(x - max), write exp(x - max) / sum), f32 and bf16.
// `kjudge loop softmax --device cuda --dtype bf16 --proposer autotune:examples/templates/softmax_cuda_rowwise.cu`
//
// The first value of each parameter is the naive choice, so the default configuration is the
// textbook kernel: one thread per row (uncoalesced: neighbouring threads read addresses a row
// apart), scalar loads, libdevice expf. THREADS > 1 gives a row to a block of that many threads
// (coalesced, block reductions); VEC reads 16 bytes per load where rows are aligned; FAST_EXP
// uses the hardware exp2 approximation (__expf), a few ulp in f32, which the oracle judges.
//
// kj-param: THREADS = 1, 64, 256, 1024
// kj-param: VEC = 0, 1
// kj-param: FAST_EXP = 0, 1
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

// Defaults so the template also compiles on its own (kjudge eval on the template itself).
#ifndef THREADS
#define THREADS 1
#endif
#ifndef VEC
#define VEC 0
#endif
#ifndef FAST_EXP
#define FAST_EXP 0
#endif
#ifndef KJ_AUTOTUNE_CONFIG
#define KJ_AUTOTUNE_CONFIG "THREADS=1 VEC=0 FAST_EXP=0"
#endif

namespace {

__device__ __forceinline__ float exp_of(float v) {
#if FAST_EXP
  return __expf(v);
#else
  return expf(v);
#endif
}

// One thread per row: the naive starting point.
template <class T>
__global__ void softmax_thread_per_row(const T* __restrict__ x, T* __restrict__ y, int64_t m, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const T* xr = x + i * n;
  T* yr = y + i * n;
  float mx = -INFINITY;
  for (int64_t j = 0; j < n; ++j) mx = fmaxf(mx, kjcu::to_f32(xr[j]));
  float s = 0.0f;
  for (int64_t j = 0; j < n; ++j) s += exp_of(kjcu::to_f32(xr[j]) - mx);
  const float inv = 1.0f / s;
  for (int64_t j = 0; j < n; ++j) yr[j] = kjcu::from_f32<T>(exp_of(kjcu::to_f32(xr[j]) - mx) * inv);
}

// One block per row, three passes over the row (the later ones mostly from L2).
template <class T, bool Vec>
__global__ void __launch_bounds__(THREADS > 1 ? THREADS : 32)
    softmax_block_per_row(const T* __restrict__ x, T* __restrict__ y, int64_t m, int64_t n) {
  constexpr int vw = kjcu::vec16<T>::width;
  const int64_t step = Vec ? static_cast<int64_t>(blockDim.x) * vw : blockDim.x;
  const int64_t first = Vec ? static_cast<int64_t>(threadIdx.x) * vw : threadIdx.x;
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    const T* xr = x + i * n;
    T* yr = y + i * n;
    float mx = -INFINITY;
    for (int64_t j = first; j < n; j += step) {
      if constexpr (Vec) {
        float v[vw];
        kjcu::load_vec(xr + j, v);
#pragma unroll
        for (int e = 0; e < vw; ++e) mx = fmaxf(mx, v[e]);
      } else {
        mx = fmaxf(mx, kjcu::to_f32(xr[j]));
      }
    }
    mx = kjcu::block_max(mx);
    float s = 0.0f;
    for (int64_t j = first; j < n; j += step) {
      if constexpr (Vec) {
        float v[vw];
        kjcu::load_vec(xr + j, v);
#pragma unroll
        for (int e = 0; e < vw; ++e) s += exp_of(v[e] - mx);
      } else {
        s += exp_of(kjcu::to_f32(xr[j]) - mx);
      }
    }
    const float inv = 1.0f / kjcu::block_sum(s);
    for (int64_t j = first; j < n; j += step) {
      if constexpr (Vec) {
        float v[vw];
        kjcu::load_vec(xr + j, v);
#pragma unroll
        for (int e = 0; e < vw; ++e) v[e] = exp_of(v[e] - mx) * inv;
        kjcu::store_vec(yr + j, v);
      } else {
        yr[j] = kjcu::from_f32<T>(exp_of(kjcu::to_f32(xr[j]) - mx) * inv);
      }
    }
  }
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
    if (THREADS == 1) {
      const int block = 128;
      softmax_thread_per_row<T><<<static_cast<unsigned>((m + block - 1) / block), block, 0, s>>>(x, y, m, n);
    } else if (VEC && kjcu::rows_vectorizable<T>(x, n) && kjcu::rows_vectorizable<T>(y, n)) {
      softmax_block_per_row<T, true><<<kjcu::row_grid(m), THREADS, 0, s>>>(x, y, m, n);
    } else {
      softmax_block_per_row<T, false><<<kjcu::row_grid(m), THREADS, 0, s>>>(x, y, m, n);
    }
    return kjcu::launch_status();
  });
}

KJ_EXPORT const char* kj_info(void) { return "family=rowwise-3pass-cuda;notes=" KJ_AUTOTUNE_CONFIG; }
