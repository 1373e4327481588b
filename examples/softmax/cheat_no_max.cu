// CHEAT: softmax without subtracting the row max: y = exp(x) / sum(exp(x)), one statistics pass
// fewer. Exact in real arithmetic, but expf overflows to Inf once a logit exceeds ~88.7 (the row
// becomes Inf/Inf = NaN) and all-negative rows below ~-87 underflow to 0/0. Passes N(0,1) and
// U[0,1) logits; fails on large, wide, offset and heavy-tailed data. Expected verdict:
// wrong_result.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

template <class T>
__global__ void softmax_no_max(const T* x, T* y, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += expf(kjcu::to_f32(x[i * n + j]));
    s = kjcu::block_sum(s);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) y[i * n + j] = kjcu::from_f32<T>(expf(kjcu::to_f32(x[i * n + j])) / s);
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m = 0, n = 0;
  if (a->n_inputs != 1 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n)) return kjref::status_bad_args;
  const auto s = static_cast<cudaStream_t>(a->stream);
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    softmax_no_max<T><<<kjcu::row_grid(m), 256, 0, s>>>(static_cast<const T*>(a->inputs[0].data),
                                                        static_cast<T*>(a->outputs[0].data), m, n);
    return kjcu::launch_status();
  });
}

KJ_EXPORT const char* kj_info(void) { return "family=one-pass;notes=no max subtraction"; }
