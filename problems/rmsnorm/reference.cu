// Reference for rmsnorm on cuda: y[M,N] = x * rsqrt(mean(x^2) + eps) * weight[N] per row,
// eps = scalars[0] (1e-6 when absent).
//
// kj_run: the plain float algorithm, one block per row: sum of squares (block reduction in a
// fixed order), one reciprocal square root per row, y = x * r * w. bf16 is loaded to float and
// only y is rounded. It is the oracle's trusted reference in the candidate's dtype, the A/A
// candidate and the "reference" baseline on cuda.
// kj_reference_f64: the same in double on the device.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

namespace {

constexpr double default_eps = 1e-6;
constexpr int threads = 256;

struct dims {
  int64_t m = 0, n = 0;
};

int check(const kj_args* a, dims* d) {
  if (a == nullptr || a->n_inputs != 2 || a->n_outputs != 1) return kjref::status_bad_args;
  if (!kjref::is_matrix(a->inputs[0], &d->m, &d->n)) return kjref::status_bad_args;
  if (!kjref::is_vector_of(a->inputs[1], d->n) || !kjref::is_matrix_of(a->outputs[0], d->m, d->n))
    return kjref::status_bad_args;
  if (!kjref::all_contiguous(a)) return kjref::status_bad_layout;
  return kjref::status_ok;
}

template <class T>
__global__ void rmsnorm_f32(const T* x, const T* w, T* y, int64_t m, int64_t n, float eps) {
  const float inv_n = 1.0f / static_cast<float>(n);
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    const T* xr = x + i * n;
    T* yr = y + i * n;
    float sq = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const float v = kjcu::to_f32(xr[j]);
      sq += v * v;
    }
    const float r = 1.0f / sqrtf(kjcu::block_sum(sq) * inv_n + eps);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x)
      yr[j] = kjcu::from_f32<T>(kjcu::to_f32(xr[j]) * r * kjcu::to_f32(w[j]));
  }
}

__global__ void rmsnorm_f64(const double* x, const double* w, double* y, int64_t m, int64_t n, double eps) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    const double* xr = x + i * n;
    double* yr = y + i * n;
    double sq = 0.0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) sq += xr[j] * xr[j];
    const double r = 1.0 / sqrt(kjcu::block_sum(sq) / static_cast<double>(n) + eps);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) yr[j] = xr[j] * r * w[j];
  }
}

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  dims d;
  if (int s = check(a, &d)) return s;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return kjref::status_bad_dtype;
  const float eps = static_cast<float>(kjref::scalar_or(a, 0, default_eps));
  const auto s = static_cast<cudaStream_t>(a->stream);
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    rmsnorm_f32<T><<<kjcu::row_grid(d.m), threads, 0, s>>>(static_cast<const T*>(a->inputs[0].data),
                                                           static_cast<const T*>(a->inputs[1].data),
                                                           static_cast<T*>(a->outputs[0].data), d.m, d.n, eps);
    return kjcu::launch_status();
  });
}

KJ_EXPORT int kj_reference_f64(const kj_args* a) {
  dims d;
  if (int s = check(a, &d)) return s;
  if (!kjref::same_dtype(a, KJ_F64)) return kjref::status_bad_dtype;
  rmsnorm_f64<<<kjcu::row_grid(d.m), threads, 0, static_cast<cudaStream_t>(a->stream)>>>(
      static_cast<const double*>(a->inputs[0].data), static_cast<const double*>(a->inputs[1].data),
      static_cast<double*>(a->outputs[0].data), d.m, d.n, kjref::scalar_or(a, 0, default_eps));
  return kjcu::launch_status();
}

KJ_EXPORT const char* kj_info(void) {
  return "family=reference;notes=cuda: one block per row, float sum of squares";
}
