// Vendor baseline for batched_qr on cuda: cublasSgeqrfBatched, the batched Householder QR of the
// CUDA math libraries (it lives in cuBLAS; cuSOLVER's dense geqrf takes one matrix per call, and
// torch.geqrf, timed as the torch:* baselines, loops over the batch with it or MAGMA).
//
// cuBLAS is column-major and the problem row-major, so a call is three steps on the call's
// stream: A is transposed into H (H's bytes, read column-major, are then A), geqrf runs in place
// there and writes tau, and every H[b] is transposed back in place (32 x 32 tiles through shared
// memory). The transposes are part of what a row-major user of cuBLAS pays. cuBLAS takes device
// arrays of per-matrix pointers; they are written by a kernel into the workspace the judge
// allocates (kj_workspace_bytes: 2 B pointers), since the buffers are fresh on every call.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"
#include "colmajor.cuh"
#include "qr_args.h"

namespace {

using colmajor::transpose_batch;
using colmajor::transpose_batch_inplace;

constexpr int status_cublas = 200;

cublasHandle_t handle() {
  static cublasHandle_t h = nullptr;
  if (h == nullptr && cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) h = nullptr;
  return h;
}

__global__ void pointer_arrays(float** a_ptrs, float** tau_ptrs, float* h, float* tau, int64_t batch, int n) {
  const int64_t nn = static_cast<int64_t>(n) * n;
  for (int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; b < batch;
       b += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    a_ptrs[b] = h + b * nn;
    tau_ptrs[b] = tau + b * n;
  }
}

}  // namespace

KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a) {
  qr_args::dims d;
  if (qr_args::check(a, &d) != kjref::status_ok) return 0;
  return 2 * static_cast<size_t>(d.b) * sizeof(float*);
}

KJ_EXPORT int kj_run(const kj_args* a) {
  qr_args::dims d;
  if (int st = qr_args::check(a, &d)) return st;
  const int64_t b = d.b, n = d.n;
  if (!kjref::same_dtype(a, KJ_F32)) return kjref::status_bad_dtype;
  if (b == 0 || n == 0) return kjref::status_ok;
  if (n > 0x7fffffff || b > 0x7fffffff || a->workspace_bytes < 2 * static_cast<size_t>(b) * sizeof(float*))
    return kjref::status_bad_args;
  if (handle() == nullptr) return status_cublas;
  const auto s = static_cast<cudaStream_t>(a->stream);
  const int ni = static_cast<int>(n);
  const auto* A = static_cast<const float*>(a->inputs[0].data);
  auto* H = static_cast<float*>(a->outputs[0].data);
  auto* tau = static_cast<float*>(a->outputs[1].data);
  auto** a_ptrs = static_cast<float**>(a->workspace);
  float** tau_ptrs = a_ptrs + b;

  const dim3 grid = colmajor::transpose_grid(b, n), block = colmajor::transpose_block();
  transpose_batch<<<grid, block, 0, s>>>(A, H, b, ni);
  pointer_arrays<<<static_cast<unsigned>((b + 255) / 256 < 4096 ? (b + 255) / 256 : 4096), 256, 0, s>>>(
      a_ptrs, tau_ptrs, H, tau, b, ni);
  if (int st = kjcu::launch_status()) return st;
  if (cublasSetStream(handle(), s) != CUBLAS_STATUS_SUCCESS) return status_cublas + 1;
  int info = 0;  // host: the argument check's result; the factorization itself cannot fail
  if (cublasSgeqrfBatched(handle(), ni, ni, a_ptrs, ni, tau_ptrs, &info, static_cast<int>(b)) !=
          CUBLAS_STATUS_SUCCESS ||
      info != 0)
    return status_cublas + 2;
  transpose_batch_inplace<<<grid, block, 0, s>>>(H, b, ni);
  return kjcu::launch_status();
}

KJ_EXPORT const char* kj_info(void) {
  return "family=vendor;notes=cublasSgeqrfBatched on the transposed batch, transposed back in place";
}
