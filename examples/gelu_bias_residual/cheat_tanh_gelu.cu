// CHEAT: gelu_bias_residual with the tanh approximation
//   gelu(v) ~ 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3)))
// instead of the erf GELU the problem specifies, with the fast tanhf. Cheaper, but its error
// against the exact GELU reaches ~3e-4 absolute near |v| ~ 2, far above the f32 tolerance on
// ordinary N(0,1) data. Expected verdict: wrong_result (f32).
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

template <class T>
__global__ void gelu_tanh(const T* x, const T* bias, const T* res, T* out, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.y; i < m; i += gridDim.y)
    for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < n;
         j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
      const int64_t k = i * n + j;
      const float v = kjcu::to_f32(x[k]) + kjcu::to_f32(bias[j]);
      const float g = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
      out[k] = kjcu::from_f32<T>(g + kjcu::to_f32(res[k]));
    }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m = 0, n = 0;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n)) return kjref::status_bad_args;
  const dim3 grid(static_cast<unsigned>(std::min<int64_t>((n + 255) / 256, 65535)), static_cast<unsigned>(std::min<int64_t>(m, 65535)));
  const auto s = static_cast<cudaStream_t>(a->stream);
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    gelu_tanh<T><<<grid, 256, 0, s>>>(static_cast<const T*>(a->inputs[0].data), static_cast<const T*>(a->inputs[1].data),
                                      static_cast<const T*>(a->inputs[2].data), static_cast<T*>(a->outputs[0].data), m, n);
    return kjcu::launch_status();
  });
}

KJ_EXPORT const char* kj_info(void) { return "family=approximation;notes=tanh GELU"; }
