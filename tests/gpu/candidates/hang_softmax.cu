// GPU fault test: a kernel that never ends. Expected verdict: timeout (the controller's watchdog
// kills the worker's process group; the driver tears the context down and the GPU stays usable).
#include <cuda_runtime.h>

#include "kjudge/candidate.h"

__device__ volatile int g_never = 0;  // nothing ever sets it

__global__ void forever() {
  while (g_never == 0) {
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  forever<<<1, 1, 0, static_cast<cudaStream_t>(a->stream)>>>();
  return 0;
}
