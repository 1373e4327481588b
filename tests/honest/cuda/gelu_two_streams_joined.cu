// Honest (gelu_bias_residual, cuda): the rows are split between two internal streams that wait
// on an event of the call's stream first, and the call's stream waits on both before kj_run
// returns (fork/join with events): all work completes with the call's stream.
// Expected: ok, no rule (no unjoined_stream_work: the joined streams end before the stop event).
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

__global__ void gelu_rows(const float* x, const float* b, const float* r, float* out, int64_t lo, int64_t hi, int64_t n) {
  for (int64_t i = lo * n + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < hi * n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float v = x[i] + b[i % n];
    out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f)) + r[i];
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  static cudaStream_t side[2] = {nullptr, nullptr};
  static cudaEvent_t fork_ev = nullptr, join_ev[2] = {nullptr, nullptr};
  if (side[0] == nullptr) {
    for (auto& s : side) cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&fork_ev, cudaEventDisableTiming);
    for (auto& e : join_ev) cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  }
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  auto main_s = static_cast<cudaStream_t>(a->stream);
  cudaEventRecord(fork_ev, main_s);
  const int64_t half = m / 2;
  for (int k = 0; k < 2; ++k) {
    cudaStreamWaitEvent(side[k], fork_ev, 0);
    const int64_t lo = k == 0 ? 0 : half, hi = k == 0 ? half : m;
    if (hi > lo)
      gelu_rows<<<1024, 256, 0, side[k]>>>(static_cast<const float*>(a->inputs[0].data), static_cast<const float*>(a->inputs[1].data),
                                           static_cast<const float*>(a->inputs[2].data), static_cast<float*>(a->outputs[0].data),
                                           lo, hi, n);
    cudaEventRecord(join_ev[k], side[k]);
    cudaStreamWaitEvent(main_s, join_ev[k], 0);
  }
  return kjcu::launch_status();
}
