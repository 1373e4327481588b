// Attack (stale output reuse, cuda): keeps a device copy of the last output computed for a shape
// and, when the shape comes again, copies it back instead of computing (the "freed reference
// output reused" trick, with the candidate holding the memory itself).
// Expected: hack, rule stale_output (the stale-output probe changes a few elements of every
// input and the output is the previous call's).
#include <cuda_runtime.h>

#include <map>
#include <utility>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

__global__ void gelu_kernel(const float* x, const float* b, const float* r, float* out, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < m * n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float v = x[i] + b[i % n];
    out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f)) + r[i];
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const size_t bytes = static_cast<size_t>(m * n) * sizeof(float);
  auto s = static_cast<cudaStream_t>(a->stream);
  static std::map<std::pair<int64_t, int64_t>, void*> cache;
  auto it = cache.find({m, n});
  if (it != cache.end()) {
    cudaMemcpyAsync(a->outputs[0].data, it->second, bytes, cudaMemcpyDeviceToDevice, s);
    return kjcu::launch_status();
  }
  gelu_kernel<<<1024, 256, 0, s>>>(static_cast<const float*>(a->inputs[0].data), static_cast<const float*>(a->inputs[1].data),
                                   static_cast<const float*>(a->inputs[2].data), static_cast<float*>(a->outputs[0].data), m, n);
  void* keep = nullptr;
  if (cudaMalloc(&keep, bytes) == cudaSuccess) {
    cudaMemcpyAsync(keep, a->outputs[0].data, bytes, cudaMemcpyDeviceToDevice, s);
    cache[{m, n}] = keep;
  }
  return kjcu::launch_status();
}
