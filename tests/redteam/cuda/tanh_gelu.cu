// Attack (cruder approximation, cuda): tanh-form GELU with the hardware tanh.approx instruction
// (tanhf under --use_fast_math), where the problem asks for the exact erf form.
// Expected: wrong_result, rule tolerance.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

__device__ __forceinline__ float tanh_approx(float v) {
  float r;
  asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}

__global__ void gelu_tanh(const float* x, const float* b, const float* r, float* out, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < m * n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float v = x[i] + b[i % n];
    out[i] = 0.5f * v * (1.0f + tanh_approx(0.7978845608f * (v + 0.044715f * v * v * v))) + r[i];
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  gelu_tanh<<<1024, 256, 0, static_cast<cudaStream_t>(a->stream)>>>(
      static_cast<const float*>(a->inputs[0].data), static_cast<const float*>(a->inputs[1].data),
      static_cast<const float*>(a->inputs[2].data), static_cast<float*>(a->outputs[0].data), m, n);
  return kjcu::launch_status();
}
