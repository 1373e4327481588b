// Attack (calling the baseline library where the problem forbids it, cuda): matmul_bias_relu
// through cublasSgemm (the strongest baseline itself) plus a small bias+ReLU kernel, presented
// as a hand-written kernel.
// Expected: hack, rule library_call: problems/matmul_no_library sets library_kernels = false, and
// the CUPTI trace of a checked call shows a kernel (cuBLAS's gemm) that is not among the entry
// functions ptxas compiled from this file.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

__global__ void bias_relu(float* c, const float* bias, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < m * n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float v = c[i] + bias[i % n];
    c[i] = v > 0.0f ? v : 0.0f;
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  const int64_t m = a->inputs[0].shape[0], k = a->inputs[0].shape[1], n = a->inputs[1].shape[1];
  static cublasHandle_t h = nullptr;
  if (h == nullptr && cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  auto s = static_cast<cudaStream_t>(a->stream);
  cublasSetStream(h, s);
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A B is column-major C^T = B^T A^T.
  if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &one,
                  static_cast<const float*>(a->inputs[1].data), static_cast<int>(n),
                  static_cast<const float*>(a->inputs[0].data), static_cast<int>(k), &zero,
                  static_cast<float*>(a->outputs[0].data), static_cast<int>(n)) != CUBLAS_STATUS_SUCCESS)
    return 2;
  bias_relu<<<1024, 256, 0, s>>>(static_cast<float*>(a->outputs[0].data), static_cast<const float*>(a->inputs[2].data), m, n);
  return kjcu::launch_status();
}
