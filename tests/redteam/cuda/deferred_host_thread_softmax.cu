// Attack (work finished by a host thread after the call, cuda): kj_run returns at once; a
// detached host thread launches the softmax on the call's stream about 1 ms later, after the
// judge's stop event was queued.
// Expected: hack, rule deferred_work or unjoined_stream_work (the kernel runs after the stop
// event), or wrong_result unwritten_output (the output was still poison when read).
#include <cuda_runtime.h>

#include <chrono>
#include <thread>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

__global__ void softmax_rows(const float* x, float* y, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    float mx = -INFINITY;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) mx = fmaxf(mx, x[i * n + j]);
    mx = kjcu::block_max(mx);
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += expf(x[i * n + j] - mx);
    s = kjcu::block_sum(s);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) y[i * n + j] = expf(x[i * n + j] - mx) / s;
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  auto s = static_cast<cudaStream_t>(a->stream);
  std::thread([=] {
    std::this_thread::sleep_for(std::chrono::microseconds(1000));
    softmax_rows<<<kjcu::row_grid(m), 256, 0, s>>>(x, y, m, n);
  }).detach();
  return 0;
}
