// Honest (softmax, cuda): one warp per row, max and sum by warp shuffles (no shared memory),
// rows strided over the grid; f32 and bf16.
// Expected: ok, no rule.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

template <class T>
__global__ void softmax_warp(const T* x, T* y, int64_t m, int64_t n) {
  const int lane = threadIdx.x & 31;
  const int64_t warp = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t i = warp; i < m; i += warps) {
    float mx = -INFINITY;
    for (int64_t j = lane; j < n; j += 32) mx = fmaxf(mx, kjcu::to_f32(x[i * n + j]));
    mx = kjcu::warp_reduce(mx, kjcu::max_op{});
    float s = 0.0f;
    for (int64_t j = lane; j < n; j += 32) s += expf(kjcu::to_f32(x[i * n + j]) - mx);
    s = kjcu::warp_reduce(s, kjcu::sum_op{});
    const float inv = 1.0f / s;
    for (int64_t j = lane; j < n; j += 32) y[i * n + j] = kjcu::from_f32<T>(expf(kjcu::to_f32(x[i * n + j]) - mx) * inv);
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>((m + 7) / 8, 65535));
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    softmax_warp<T><<<blocks, 256, 0, static_cast<cudaStream_t>(a->stream)>>>(
        static_cast<const T*>(a->inputs[0].data), static_cast<T*>(a->outputs[0].data), m, n);
    return kjcu::launch_status();
  });
}
