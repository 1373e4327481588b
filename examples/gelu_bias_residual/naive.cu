// Honest, naive gelu_bias_residual for the GPU: one thread per element over the flattened
// matrix, the column recovered with a 64-bit modulo, scalar loads, erff GELU in float.
// Expected verdict: correct; not faster than the reference kernel (about as fast: both are
// bound by memory, and this one spends extra integer work per element).
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

template <class T>
__global__ void gelu_naive(const T* x, const T* bias, const T* res, T* out, int64_t total, int64_t n) {
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float v = kjcu::to_f32(x[k]) + kjcu::to_f32(bias[k % n]);
    out[k] = kjcu::from_f32<T>(0.5f * v * (1.0f + erff(v * 0.70710678f)) + kjcu::to_f32(res[k]));
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m = 0, n = 0;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n)) return kjref::status_bad_args;
  const int64_t total = m * n;
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>((total + 255) / 256, 65535LL * 8));
  const auto s = static_cast<cudaStream_t>(a->stream);
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    gelu_naive<T><<<blocks, 256, 0, s>>>(static_cast<const T*>(a->inputs[0].data), static_cast<const T*>(a->inputs[1].data),
                                         static_cast<const T*>(a->inputs[2].data), static_cast<T*>(a->outputs[0].data), total, n);
    return kjcu::launch_status();
  });
}

KJ_EXPORT const char* kj_info(void) { return "family=naive;notes=one thread per element, modulo for the column"; }
