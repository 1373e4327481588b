// Vendor baseline for batched_qr on cuda: cuSOLVER's dense geqrf (cusolverDnSgeqrf), the
// library's QR for one matrix per call, called for every matrix of the batch on the call's
// stream. It is the route a user of cuSOLVER takes for a batch of large matrices (cuBLAS's
// batched geqrf, the other vendor baseline, is meant for many small ones).
//
// Column-major like cuBLAS: A is transposed into H, each H[b] factorised in place (tau[b] from
// the same call), and H transposed back in place (problems/batched_qr/colmajor.cuh). The
// factorisation's workspace and its info word are allocated once, on the first call (a warm-up
// call: never timed), and grown when a larger n needs more.
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"
#include "colmajor.cuh"
#include "qr_args.h"

namespace {

constexpr int status_cusolver = 300;

struct solver_state {
  cusolverDnHandle_t handle = nullptr;
  float* work = nullptr;
  int work_floats = 0;
  int* info = nullptr;  // device: geqrf's argument check (the factorisation itself cannot fail)
};

solver_state& state() {
  static solver_state s;
  if (s.handle == nullptr && cusolverDnCreate(&s.handle) != CUSOLVER_STATUS_SUCCESS) s.handle = nullptr;
  return s;
}

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  qr_args::dims d;
  if (int st = qr_args::check(a, &d)) return st;
  const int64_t b = d.b, n = d.n;
  if (!kjref::same_dtype(a, KJ_F32)) return kjref::status_bad_dtype;
  if (b == 0 || n == 0) return kjref::status_ok;
  if (n > 0x7fffffff) return kjref::status_bad_args;
  solver_state& st = state();
  if (st.handle == nullptr) return status_cusolver;
  const auto s = static_cast<cudaStream_t>(a->stream);
  const int ni = static_cast<int>(n);
  const auto* A = static_cast<const float*>(a->inputs[0].data);
  auto* H = static_cast<float*>(a->outputs[0].data);
  auto* tau = static_cast<float*>(a->outputs[1].data);
  if (cusolverDnSetStream(st.handle, s) != CUSOLVER_STATUS_SUCCESS) return status_cusolver + 1;
  int lwork = 0;
  if (cusolverDnSgeqrf_bufferSize(st.handle, ni, ni, H, ni, &lwork) != CUSOLVER_STATUS_SUCCESS)
    return status_cusolver + 2;
  if (lwork > st.work_floats || st.info == nullptr) {
    // First call for this size (a warm-up call): synchronous allocation, kept for later calls.
    if (cudaStreamSynchronize(s) != cudaSuccess) return status_cusolver + 3;
    cudaFree(st.work);
    st.work = nullptr;
    st.work_floats = 0;
    if (cudaMalloc(&st.work, sizeof(float) * static_cast<size_t>(lwork > 0 ? lwork : 1)) != cudaSuccess)
      return status_cusolver + 4;
    st.work_floats = lwork;
    if (st.info == nullptr && cudaMalloc(&st.info, sizeof(int)) != cudaSuccess) return status_cusolver + 5;
  }
  const dim3 grid = colmajor::transpose_grid(b, n), block = colmajor::transpose_block();
  colmajor::transpose_batch<<<grid, block, 0, s>>>(A, H, b, ni);
  if (int e = kjcu::launch_status()) return e;
  const int64_t nn = n * n;
  for (int64_t k = 0; k < b; ++k)
    if (cusolverDnSgeqrf(st.handle, ni, ni, H + k * nn, ni, tau + k * n, st.work, st.work_floats, st.info) !=
        CUSOLVER_STATUS_SUCCESS)
      return status_cusolver + 6;
  colmajor::transpose_batch_inplace<<<grid, block, 0, s>>>(H, b, ni);
  return kjcu::launch_status();
}

KJ_EXPORT const char* kj_info(void) {
  return "family=vendor;notes=cusolverDnSgeqrf per matrix on the transposed batch, transposed back in place";
}
