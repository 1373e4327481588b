// Reference for gelu_bias_residual on cuda: out[M,N] = gelu_erf(x + bias[N]) + residual,
// gelu_erf(v) = 0.5 v (1 + erf(v / sqrt 2)).
//
// kj_run: the plain float computation PyTorch's CUDA kernel performs (x + bias, erff-based GELU,
// + residual, all in float; bf16 is loaded to float and only the output is rounded), one thread
// per element. It is the oracle's trusted reference in the candidate's dtype, the A/A candidate
// and the "reference" baseline on cuda.
// kj_reference_f64: the same in double on the device, with erfc so that v * Phi(v) keeps full
// relative accuracy for negative v (where 1 + erf cancels).
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

namespace {

constexpr int threads = 256;

struct dims {
  int64_t m = 0, n = 0;
};

int check(const kj_args* a, dims* d) {
  if (a == nullptr || a->n_inputs != 3 || a->n_outputs != 1) return kjref::status_bad_args;
  if (!kjref::is_matrix(a->inputs[0], &d->m, &d->n)) return kjref::status_bad_args;
  if (!kjref::is_vector_of(a->inputs[1], d->n) || !kjref::is_matrix_of(a->inputs[2], d->m, d->n) ||
      !kjref::is_matrix_of(a->outputs[0], d->m, d->n))
    return kjref::status_bad_args;
  if (!kjref::all_contiguous(a)) return kjref::status_bad_layout;
  return kjref::status_ok;
}

dim3 grid_for(const dims& d) {
  const int64_t bx = (d.n + threads - 1) / threads;
  return dim3(static_cast<unsigned>(bx > 65535 ? 65535 : bx), static_cast<unsigned>(d.m > 65535 ? 65535 : d.m));
}

template <class T>
__global__ void gelu_f32(const T* x, const T* bias, const T* res, T* out, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.y; i < m; i += gridDim.y)
    for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < n;
         j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
      const int64_t k = i * n + j;
      const float v = kjcu::to_f32(x[k]) + kjcu::to_f32(bias[j]);
      const float g = 0.5f * v * (1.0f + erff(v * 0.707106781186547524f));
      out[k] = kjcu::from_f32<T>(g + kjcu::to_f32(res[k]));
    }
}

__global__ void gelu_f64(const double* x, const double* bias, const double* res, double* out, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.y; i < m; i += gridDim.y)
    for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < n;
         j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
      const int64_t k = i * n + j;
      const double v = x[k] + bias[j];
      out[k] = v * (0.5 * erfc(-v * 0.70710678118654752440)) + res[k];
    }
}

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  dims d;
  if (int s = check(a, &d)) return s;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return kjref::status_bad_dtype;
  const auto s = static_cast<cudaStream_t>(a->stream);
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    gelu_f32<T><<<grid_for(d), threads, 0, s>>>(static_cast<const T*>(a->inputs[0].data),
                                                static_cast<const T*>(a->inputs[1].data),
                                                static_cast<const T*>(a->inputs[2].data),
                                                static_cast<T*>(a->outputs[0].data), d.m, d.n);
    return kjcu::launch_status();
  });
}

KJ_EXPORT int kj_reference_f64(const kj_args* a) {
  dims d;
  if (int s = check(a, &d)) return s;
  if (!kjref::same_dtype(a, KJ_F64)) return kjref::status_bad_dtype;
  gelu_f64<<<grid_for(d), threads, 0, static_cast<cudaStream_t>(a->stream)>>>(
      static_cast<const double*>(a->inputs[0].data), static_cast<const double*>(a->inputs[1].data),
      static_cast<const double*>(a->inputs[2].data), static_cast<double*>(a->outputs[0].data), d.m, d.n);
  return kjcu::launch_status();
}

KJ_EXPORT const char* kj_info(void) {
  return "family=reference;notes=cuda: float erff GELU, one thread per element";
}
