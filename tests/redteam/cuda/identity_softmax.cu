// Attack (identity output, cuda): copies x to y on the call's stream (cudaMemcpyAsync), no
// softmax at all.
// Expected: wrong_result, rule tolerance.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

KJ_EXPORT int kj_run(const kj_args* a) {
  const size_t bytes = static_cast<size_t>(a->inputs[0].shape[0] * a->inputs[0].shape[1]) *
                       (a->inputs[0].dtype == KJ_BF16 ? 2 : 4);
  cudaMemcpyAsync(a->outputs[0].data, a->inputs[0].data, bytes, cudaMemcpyDeviceToDevice,
                  static_cast<cudaStream_t>(a->stream));
  return kjcu::launch_status();
}
