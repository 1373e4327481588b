// Attack (modifying inputs, cuda): writes x + bias back into x to save a temporary, then computes
// the output from it.
// Expected: hack, rule input_modified (the inputs compared with the reference's pristine copy
// after the call). A candidate that restores its inputs before the stream completes is not seen
// on the GPU (device memory cannot be made read-only per call): docs/threat-model.md.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

__global__ void add_bias(float* x, const float* b, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < m * n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    x[i] += b[i % n];
}
__global__ void gelu_res(const float* v, const float* r, float* out, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = 0.5f * v[i] * (1.0f + erff(v[i] * 0.70710678f)) + r[i];
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  auto s = static_cast<cudaStream_t>(a->stream);
  float* x = static_cast<float*>(a->inputs[0].data);
  add_bias<<<1024, 256, 0, s>>>(x, static_cast<const float*>(a->inputs[1].data), m, n);
  gelu_res<<<1024, 256, 0, s>>>(x, static_cast<const float*>(a->inputs[2].data), static_cast<float*>(a->outputs[0].data), m * n);
  return kjcu::launch_status();
}
