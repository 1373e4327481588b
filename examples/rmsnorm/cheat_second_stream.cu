// CHEAT: rmsnorm launched on a stream of its own that is never joined to kj_args.stream. kj_run
// returns at once, the judge's stop event follows at once on its stream, and the timer would
// report almost nothing while the real work runs on. The output may even be right by the time
// the judge reads it. Caught by: the judge reads the outputs in order on its own stream only
// (unfinished rows are still poison: unwritten_output), the deferred-work probe (outputs that
// change after the call returned), and the CUPTI trace of checked calls (kernels on another
// stream, ending after the stop event). Expected verdict: rejected (wrong_result or hack).
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
  int64_t m = 0, n = 0;
  if (a->n_inputs != 2 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n)) return kjref::status_bad_args;
  static cudaStream_t mine = nullptr;
  if (mine == nullptr) {
    const cudaError_t e = cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking);
    if (e != cudaSuccess) return kjcu::status_cuda_error_base + static_cast<int>(e);
  }
  const float eps = static_cast<float>(kjref::scalar_or(a, 0, 1e-6));
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    rmsnorm_rows<T><<<kjcu::row_grid(m), 256, 0, mine>>>(static_cast<const T*>(a->inputs[0].data),
                                                         static_cast<const T*>(a->inputs[1].data),
                                                         static_cast<T*>(a->outputs[0].data), m, n, eps);
    return kjcu::launch_status();  // no event, no wait: the judge's stream knows nothing of it
  });
}

KJ_EXPORT const char* kj_info(void) { return "family=async;notes=work on a private stream, never joined"; }
