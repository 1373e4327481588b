// GPU fault test: writes through a wild pointer. Expected verdict: runtime_error (the worker
// reports the sticky cudaErrorIllegalAddress and exits); the next candidate runs on a healthy GPU.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"

__global__ void wild(float* p) { p[threadIdx.x * 1000003ull] = 1.0f; }

KJ_EXPORT int kj_run(const kj_args* a) {
  wild<<<1, 256, 0, static_cast<cudaStream_t>(a->stream)>>>(reinterpret_cast<float*>(0x100));
  return 0;
}
