// Vendor baseline for matmul_bias_relu on cuda: one cuBLASLt matmul with the RELU_BIAS epilogue,
// c = relu(a @ b + bias) fused in the GEMM's epilogue. f32 runs on the tensor cores in TF32
// (CUBLAS_COMPUTE_32F_FAST_TF32, as torch with allow_tf32 does; the problem permits TF32 and the
// judge records the permission); bf16 runs bf16 x bf16 with float accumulation. The algorithm is
// cuBLASLt's first heuristic choice for the shape, cached per shape and dtype; the workspace
// (32 MiB) is requested through kj_workspace_bytes, so the judge allocates and counts it.
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <map>
#include <tuple>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

namespace {

constexpr size_t workspace_bytes = 32u << 20;
constexpr int status_cublas = 200;

struct plan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  bool ok = false;
};

cublasLtHandle_t handle() {
  static cublasLtHandle_t h = nullptr;
  if (h == nullptr && cublasLtCreate(&h) != CUBLAS_STATUS_SUCCESS) h = nullptr;
  return h;
}

// Row-major c[M,N] = a[M,K] b[K,N] is column-major c^T[N,M] = b^T[N,K] a^T[K,M]: cuBLASLt's
// "A" is b (N x K, ld N), its "B" is a (K x M, ld K), and the bias runs along c^T's rows (N).
plan make_plan(int64_t m, int64_t n, int64_t k, kj_dtype t, size_t ws) {
  plan p;
  const cudaDataType_t dt = t == KJ_F32 ? CUDA_R_32F : CUDA_R_16BF;
  const cublasComputeType_t ct = t == KJ_F32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  if (cublasLtMatmulDescCreate(&p.op, ct, CUDA_R_32F) != CUBLAS_STATUS_SUCCESS) return p;
  const cublasOperation_t no = CUBLAS_OP_N;
  const cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_RELU_BIAS;
  cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &no, sizeof no);
  cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &no, sizeof no);
  cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
  cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &dt, sizeof dt);
  if (cublasLtMatrixLayoutCreate(&p.a, dt, n, k, n) != CUBLAS_STATUS_SUCCESS ||
      cublasLtMatrixLayoutCreate(&p.b, dt, k, m, k) != CUBLAS_STATUS_SUCCESS ||
      cublasLtMatrixLayoutCreate(&p.c, dt, n, m, n) != CUBLAS_STATUS_SUCCESS)
    return p;
  cublasLtMatmulPreference_t pref = nullptr;
  if (cublasLtMatmulPreferenceCreate(&pref) != CUBLAS_STATUS_SUCCESS) return p;
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  cublasLtMatmulHeuristicResult_t r{};
  int found = 0;
  if (cublasLtMatmulAlgoGetHeuristic(handle(), p.op, p.a, p.b, p.c, p.c, pref, 1, &r, &found) == CUBLAS_STATUS_SUCCESS &&
      found > 0) {
    p.algo = r.algo;
    p.ok = true;
  }
  cublasLtMatmulPreferenceDestroy(pref);
  return p;
}

}  // namespace

KJ_EXPORT size_t kj_workspace_bytes(const kj_args*) { return workspace_bytes; }

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a == nullptr || a->n_inputs != 3 || a->n_outputs != 1) return kjref::status_bad_args;
  int64_t m = 0, k = 0, k2 = 0, n = 0;
  if (!kjref::is_matrix(a->inputs[0], &m, &k) || !kjref::is_matrix(a->inputs[1], &k2, &n) || k2 != k ||
      !kjref::is_vector_of(a->inputs[2], n) || !kjref::is_matrix_of(a->outputs[0], m, n))
    return kjref::status_bad_args;
  if (!kjref::all_contiguous(a)) return kjref::status_bad_layout;
  const kj_dtype t = a->inputs[0].dtype;
  if ((t != KJ_F32 && t != KJ_BF16) || !kjref::same_dtype(a, t)) return kjref::status_bad_dtype;
  if (handle() == nullptr) return status_cublas;
  static std::map<std::tuple<int64_t, int64_t, int64_t, int, size_t>, plan> plans;
  const auto key = std::make_tuple(m, n, k, static_cast<int>(t), a->workspace_bytes);
  auto it = plans.find(key);
  if (it == plans.end()) it = plans.emplace(key, make_plan(m, n, k, t, a->workspace_bytes)).first;
  plan& p = it->second;
  if (!p.ok) return status_cublas + 1;
  // The bias pointer is fresh on every call.
  const void* bias = a->inputs[2].data;
  if (cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias) != CUBLAS_STATUS_SUCCESS)
    return status_cublas + 2;
  const float one = 1.0f, zero = 0.0f;
  const cublasStatus_t st = cublasLtMatmul(handle(), p.op, &one, a->inputs[1].data, p.a, a->inputs[0].data, p.b, &zero,
                                           a->outputs[0].data, p.c, a->outputs[0].data, p.c, &p.algo, a->workspace,
                                           a->workspace_bytes, static_cast<cudaStream_t>(a->stream));
  return st == CUBLAS_STATUS_SUCCESS ? kjref::status_ok : status_cublas + 3;
}

KJ_EXPORT const char* kj_info(void) {
  return "family=vendor;notes=cuBLASLt matmul, RELU_BIAS epilogue; f32 in TF32 (CUBLAS_COMPUTE_32F_FAST_TF32); tf32=on";
}
