// Reference for softmax on cuda: y[M,N] = softmax of x over the last dimension.
//
// kj_run: the textbook numerically safe float algorithm, one block per row: row max, sum of
// expf(x - max) (block reduction in a fixed order), then expf(x - max) / sum. bf16 is loaded to
// float and only y is rounded. It is the oracle's trusted reference in the candidate's dtype, the
// A/A candidate and the "reference" baseline on cuda.
// kj_reference_f64: the same three passes in double on the device.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

namespace {

constexpr int threads = 256;

struct dims {
  int64_t m = 0, n = 0;
};

int check(const kj_args* a, dims* d) {
  if (a == nullptr || a->n_inputs != 1 || a->n_outputs != 1) return kjref::status_bad_args;
  if (!kjref::is_matrix(a->inputs[0], &d->m, &d->n)) return kjref::status_bad_args;
  if (!kjref::is_matrix_of(a->outputs[0], d->m, d->n)) return kjref::status_bad_args;
  if (!kjref::all_contiguous(a)) return kjref::status_bad_layout;
  return kjref::status_ok;
}

template <class T>
__global__ void softmax_f32(const T* x, T* y, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    const T* xr = x + i * n;
    T* yr = y + i * n;
    float mx = -INFINITY;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) mx = fmaxf(mx, kjcu::to_f32(xr[j]));
    mx = kjcu::block_max(mx);
    float sum = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) sum += expf(kjcu::to_f32(xr[j]) - mx);
    sum = kjcu::block_sum(sum);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) yr[j] = kjcu::from_f32<T>(expf(kjcu::to_f32(xr[j]) - mx) / sum);
  }
}

__global__ void softmax_f64(const double* x, double* y, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    const double* xr = x + i * n;
    double* yr = y + i * n;
    double mx = -INFINITY;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) mx = fmax(mx, xr[j]);
    mx = kjcu::block_max(mx);
    double sum = 0.0;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) sum += exp(xr[j] - mx);
    sum = kjcu::block_sum(sum);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) yr[j] = exp(xr[j] - mx) / sum;
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
    softmax_f32<T><<<kjcu::row_grid(d.m), threads, 0, s>>>(static_cast<const T*>(a->inputs[0].data),
                                                           static_cast<T*>(a->outputs[0].data), d.m, d.n);
    return kjcu::launch_status();
  });
}

KJ_EXPORT int kj_reference_f64(const kj_args* a) {
  dims d;
  if (int s = check(a, &d)) return s;
  if (!kjref::same_dtype(a, KJ_F64)) return kjref::status_bad_dtype;
  softmax_f64<<<kjcu::row_grid(d.m), threads, 0, static_cast<cudaStream_t>(a->stream)>>>(
      static_cast<const double*>(a->inputs[0].data), static_cast<double*>(a->outputs[0].data), d.m, d.n);
  return kjcu::launch_status();
}

KJ_EXPORT const char* kj_info(void) {
  return "family=reference;notes=cuda: one block per row, three passes (max, sum of expf, divide)";
}
