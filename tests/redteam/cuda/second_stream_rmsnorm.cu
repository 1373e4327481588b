// Attack (work on another stream, never joined): rmsnorm launched on a private non-blocking
// stream; kj_run returns at once and the judge's stop event on kj_args.stream follows at once,
// so the timer sees almost nothing while the kernel runs on.
// Expected: hack, rule unjoined_stream_work (the CUPTI trace of a checked call shows a kernel on
// another stream ending after the stop event), or deferred_work (outputs changed after the call
// returned), or wrong_result unwritten_output (rows still poisoned when the judge read them).
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

template <class T>
__global__ void rmsnorm_rows(const T* x, const T* w, T* y, int64_t m, int64_t n, float eps) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    float sq = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const float v = kjcu::to_f32(x[i * n + j]);
      sq += v * v;
    }
    const float r = 1.0f / sqrtf(kjcu::block_sum(sq) / static_cast<float>(n) + eps);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x)
      y[i * n + j] = kjcu::from_f32<T>(kjcu::to_f32(x[i * n + j]) * r * kjcu::to_f32(w[j]));
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  static cudaStream_t mine = nullptr;
  if (mine == nullptr && cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking) != cudaSuccess) return 1;
  const float eps = static_cast<float>(kjref::scalar_or(a, 0, 1e-6));
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    rmsnorm_rows<T><<<kjcu::row_grid(m), 256, 0, mine>>>(static_cast<const T*>(a->inputs[0].data),
                                                         static_cast<const T*>(a->inputs[1].data),
                                                         static_cast<T*>(a->outputs[0].data), m, n, eps);
    return kjcu::launch_status();
  });
}
