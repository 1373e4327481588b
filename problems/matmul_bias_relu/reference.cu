// Reference for matmul_bias_relu on cuda: c[M,N] = relu(a[M,K] @ b[K,N] + bias[N]).
//
// kj_run: a straightforward tiled float GEMM on the CUDA cores (64x64 tiles of c per block, 16-deep
// slabs of a and b staged in shared memory, 4x4 outputs per thread), each output accumulating its
// K products in k order in float; then + bias and relu (NaN propagates, as torch.relu does). No
// tensor cores, no TF32: it is the oracle's trusted reference in the candidate's dtype (f32
// products), the A/A candidate and the "reference" baseline on cuda. bf16 is loaded to float and
// only c is rounded.
// kj_reference_f64: cuBLAS DGEMM on the device, then + bias and relu in double.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

namespace {

constexpr int tile = 64;   // c tile per block, rows and columns
constexpr int slab = 16;   // k depth staged per step
constexpr int micro = 4;   // outputs per thread, rows and columns
constexpr int threads = (tile / micro) * (tile / micro);  // 256

struct dims {
  int64_t m = 0, k = 0, n = 0;
};

int check(const kj_args* a, dims* d) {
  if (a == nullptr || a->n_inputs != 3 || a->n_outputs != 1) return kjref::status_bad_args;
  int64_t k2 = 0;
  if (!kjref::is_matrix(a->inputs[0], &d->m, &d->k) || !kjref::is_matrix(a->inputs[1], &k2, &d->n))
    return kjref::status_bad_args;
  if (k2 != d->k || !kjref::is_vector_of(a->inputs[2], d->n) || !kjref::is_matrix_of(a->outputs[0], d->m, d->n))
    return kjref::status_bad_args;
  if (!kjref::all_contiguous(a)) return kjref::status_bad_layout;
  return kjref::status_ok;
}

template <class T>
__global__ void __launch_bounds__(threads) gemm_bias_relu(const T* __restrict__ A, const T* __restrict__ B,
                                                          const T* __restrict__ bias, T* __restrict__ C,
                                                          int64_t m, int64_t n, int64_t k) {
  __shared__ float As[slab][tile + 1];  // a slab transposed: As[p][row]
  __shared__ float Bs[slab][tile];
  const int tx = threadIdx.x % (tile / micro), ty = threadIdx.x / (tile / micro);
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * tile, col0 = static_cast<int64_t>(blockIdx.x) * tile;
  float acc[micro][micro] = {};
  for (int64_t p0 = 0; p0 < k; p0 += slab) {
    // 64x16 of a and 16x64 of b per slab: four elements of each per thread; zeros outside.
    for (int e = threadIdx.x; e < tile * slab; e += threads) {
      const int r = e / slab, p = e % slab;
      const int64_t gr = row0 + r, gp = p0 + p;
      As[p][r] = (gr < m && gp < k) ? kjcu::to_f32(A[gr * k + gp]) : 0.0f;
      const int pb = e / tile, cb = e % tile;
      const int64_t gpb = p0 + pb, gc = col0 + cb;
      Bs[pb][cb] = (gpb < k && gc < n) ? kjcu::to_f32(B[gpb * n + gc]) : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < slab; ++p) {
      float av[micro], bv[micro];
#pragma unroll
      for (int i = 0; i < micro; ++i) av[i] = As[p][ty * micro + i];
#pragma unroll
      for (int j = 0; j < micro; ++j) bv[j] = Bs[p][tx * micro + j];
#pragma unroll
      for (int i = 0; i < micro; ++i)
#pragma unroll
        for (int j = 0; j < micro; ++j) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < micro; ++i) {
    const int64_t r = row0 + ty * micro + i;
    if (r >= m) continue;
#pragma unroll
    for (int j = 0; j < micro; ++j) {
      const int64_t c = col0 + tx * micro + j;
      if (c >= n) continue;
      const float v = acc[i][j] + kjcu::to_f32(bias[c]);
      C[r * n + c] = kjcu::from_f32<T>(v < 0.0f ? 0.0f : v);
    }
  }
}

__global__ void bias_relu_f64(double* c, const double* bias, int64_t m, int64_t n) {
  const int64_t total = m * n;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const double v = c[i] + bias[i % n];
    c[i] = v < 0.0 ? 0.0 : v;
  }
}

cublasHandle_t dgemm_handle() {
  static cublasHandle_t h = nullptr;
  if (h == nullptr && cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) h = nullptr;
  return h;
}

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  dims d;
  if (int s = check(a, &d)) return s;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return kjref::status_bad_dtype;
  const auto s = static_cast<cudaStream_t>(a->stream);
  const dim3 grid(static_cast<unsigned>((d.n + tile - 1) / tile), static_cast<unsigned>((d.m + tile - 1) / tile));
  if (grid.y > 65535u) return kjref::status_bad_args;
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    gemm_bias_relu<T><<<grid, threads, 0, s>>>(static_cast<const T*>(a->inputs[0].data),
                                               static_cast<const T*>(a->inputs[1].data),
                                               static_cast<const T*>(a->inputs[2].data),
                                               static_cast<T*>(a->outputs[0].data), d.m, d.n, d.k);
    return kjcu::launch_status();
  });
}

KJ_EXPORT int kj_reference_f64(const kj_args* a) {
  dims d;
  if (int s = check(a, &d)) return s;
  if (!kjref::same_dtype(a, KJ_F64)) return kjref::status_bad_dtype;
  cublasHandle_t h = dgemm_handle();
  if (h == nullptr) return kjcu::status_cuda_error_base;
  const auto s = static_cast<cudaStream_t>(a->stream);
  if (cublasSetStream(h, s) != CUBLAS_STATUS_SUCCESS) return kjcu::status_cuda_error_base;
  // Row-major c = a b is column-major c^T = b^T a^T: cuBLAS sees b as an N x K matrix (ld N) and
  // a as K x M (ld K), and writes c^T as N x M (ld N), which is c row-major.
  const double one = 1.0, zero = 0.0;
  const int m = static_cast<int>(d.m), n = static_cast<int>(d.n), k = static_cast<int>(d.k);
  if (cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, static_cast<const double*>(a->inputs[1].data), n,
                  static_cast<const double*>(a->inputs[0].data), k, &zero, static_cast<double*>(a->outputs[0].data),
                  n) != CUBLAS_STATUS_SUCCESS)
    return kjcu::status_cuda_error_base + 1;
  bias_relu_f64<<<1024, 256, 0, s>>>(static_cast<double*>(a->outputs[0].data),
                                     static_cast<const double*>(a->inputs[2].data), d.m, d.n);
  return kjcu::launch_status();
}

KJ_EXPORT const char* kj_info(void) {
  return "family=reference;notes=cuda: 64x64-tiled float GEMM on CUDA cores, k-ordered accumulation, no TF32";
}
