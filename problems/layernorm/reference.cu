// Reference for layernorm on cuda: y[M,N] = (x - mean) / sqrt(var + eps) * weight[N] + bias[N]
// per row, biased variance, eps = scalars[0] (1e-5 when absent).
//
// kj_run: the textbook float algorithm, one block per row, two passes over the row (mean, then
// the mean of squared deviations; block reductions in a fixed order), so offset data (1e4 +
// noise) does not cancel catastrophically. bf16 is loaded to float and only y is rounded. It is
// the oracle's trusted reference in the candidate's dtype, the A/A candidate and the "reference"
// baseline on cuda.
// kj_reference_f64: the same two passes in double on the device.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

namespace {

constexpr double default_eps = 1e-5;
constexpr int threads = 256;

struct dims {
  int64_t m = 0, n = 0;
};

int check(const kj_args* a, dims* d) {
  if (a == nullptr || a->n_inputs != 3 || a->n_outputs != 1) return kjref::status_bad_args;
  if (!kjref::is_matrix(a->inputs[0], &d->m, &d->n)) return kjref::status_bad_args;
  if (!kjref::is_vector_of(a->inputs[1], d->n) || !kjref::is_vector_of(a->inputs[2], d->n) ||
      !kjref::is_matrix_of(a->outputs[0], d->m, d->n))
    return kjref::status_bad_args;
  if (!kjref::all_contiguous(a)) return kjref::status_bad_layout;
  return kjref::status_ok;
}

template <class T>
__global__ void layernorm_f32(const T* x, const T* w, const T* b, T* y, int64_t m, int64_t n, float eps) {
  const float inv_n = 1.0f / static_cast<float>(n);
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    const T* xr = x + i * n;
    T* yr = y + i * n;
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += kjcu::to_f32(xr[j]);
    const float mean = kjcu::block_sum(s) * inv_n;
    float q = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const float dev = kjcu::to_f32(xr[j]) - mean;
      q += dev * dev;
    }
    const float rstd = 1.0f / sqrtf(kjcu::block_sum(q) * inv_n + eps);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const float xhat = (kjcu::to_f32(xr[j]) - mean) * rstd;
      yr[j] = kjcu::from_f32<T>(xhat * kjcu::to_f32(w[j]) + kjcu::to_f32(b[j]));
    }
  }
}

__global__ void layernorm_f64(const double* x, const double* w, const double* b, double* y, int64_t m, int64_t n,
                              double eps) {
  const double dn = static_cast<double>(n);
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    const double* xr = x + i * n;
    double* yr = y + i * n;
    double s = 0.0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += xr[j];
    const double mean = kjcu::block_sum(s) / dn;
    double q = 0.0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const double dev = xr[j] - mean;
      q += dev * dev;
    }
    const double rstd = 1.0 / sqrt(kjcu::block_sum(q) / dn + eps);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) yr[j] = (xr[j] - mean) * rstd * w[j] + b[j];
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
    layernorm_f32<T><<<kjcu::row_grid(d.m), threads, 0, s>>>(
        static_cast<const T*>(a->inputs[0].data), static_cast<const T*>(a->inputs[1].data),
        static_cast<const T*>(a->inputs[2].data), static_cast<T*>(a->outputs[0].data), d.m, d.n, eps);
    return kjcu::launch_status();
  });
}

KJ_EXPORT int kj_reference_f64(const kj_args* a) {
  dims d;
  if (int s = check(a, &d)) return s;
  if (!kjref::same_dtype(a, KJ_F64)) return kjref::status_bad_dtype;
  layernorm_f64<<<kjcu::row_grid(d.m), threads, 0, static_cast<cudaStream_t>(a->stream)>>>(
      static_cast<const double*>(a->inputs[0].data), static_cast<const double*>(a->inputs[1].data),
      static_cast<const double*>(a->inputs[2].data), static_cast<double*>(a->outputs[0].data), d.m, d.n,
      kjref::scalar_or(a, 0, default_eps));
  return kjcu::launch_status();
}

KJ_EXPORT const char* kj_info(void) {
  return "family=reference;notes=cuda: one block per row, float two-pass mean/variance";
}
