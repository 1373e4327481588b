// Attack (work moved into the untimed workspace query, cuda): the worker calls kj_workspace_bytes
// with the call's live arguments (device inputs drawn, outputs allocated and poisoned, and
// kj_args.stream set) before it flushes L2 and records the start event. This candidate launches
// the whole softmax on that stream there and returns a 64-byte workspace; the flush and its
// synchronisation wait for the kernel, so it is done before the start event. kj_run launches only
// a one-thread kernel that waits (on %globaltimer) as long as the call's minimum traffic
// (2 * M * N * 4 bytes) takes at 2.5 TB/s, so the figure stays below the speed-of-light check
// (1.5 x the H100's / H200's measured copy ceiling) while the real kernel is never timed.
// Pre-fix: not run here (no GPU on the CI VM; compiles with `kjudge build --device cuda`); the cpu
// form (cpu/workspace_compute_softmax.cpp) was ok_faster.
// Expected after the fix: the workspace query gets no data pointers (NULL inputs and outputs), so
// nothing is launched and the poison stays: wrong_result, rule unwritten_output.
#include <cuda_runtime.h>

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
    const float inv = 1.0f / s;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) y[i * n + j] = expf(x[i * n + j] - mx) * inv;
  }
}

// Waits `ns` nanoseconds of the GPU's global timer: a "plausible" duration, no memory traffic.
__global__ void wait_ns(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

constexpr double plausible_bytes_per_ns = 2500.0;  // 2.5 TB/s

KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a) {
  // Untimed: the whole computation, on the judge's stream.
  if (a->n_inputs == 1 && a->n_outputs == 1 && a->inputs[0].dtype == KJ_F32 && a->inputs[0].data != nullptr &&
      a->outputs[0].data != nullptr) {
    const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
    softmax_rows<<<kjcu::row_grid(m), 256, 0, static_cast<cudaStream_t>(a->stream)>>>(
        static_cast<const float*>(a->inputs[0].data), static_cast<float*>(a->outputs[0].data), m, n);
  }
  return 64;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  const double bytes = 2.0 * static_cast<double>(a->inputs[0].shape[0] * a->inputs[0].shape[1]) * sizeof(float);
  wait_ns<<<1, 1, 0, static_cast<cudaStream_t>(a->stream)>>>(static_cast<unsigned long long>(bytes / plausible_bytes_per_ns));
  return kjcu::launch_status();
}
