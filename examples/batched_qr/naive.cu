// Honest, naive batched_qr for the GPU: one thread per matrix, the textbook Householder QR
// (LAPACK's xLARFG reflectors) run serially by that thread straight on H in global memory. No
// shared memory, no cooperation between threads, uncoalesced accesses (neighbouring threads
// work on matrices n² floats apart). Expected verdict: correct; far slower than the one-block-
// per-matrix reference and cuBLAS, except for many tiny matrices.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

__global__ void qr_thread_per_matrix(const float* A, float* H, float* tau, int64_t batch, int64_t n) {
  const int64_t m = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (m >= batch) return;
  const float* a = A + m * n * n;
  float* h = H + m * n * n;
  float* t = tau + m * n;
  for (int64_t e = 0; e < n * n; ++e) h[e] = a[e];
  for (int64_t k = 0; k < n; ++k) {
    float x2 = 0.0f;
    for (int64_t i = k + 1; i < n; ++i) x2 += h[i * n + k] * h[i * n + k];
    if (x2 == 0.0f) {
      t[k] = 0.0f;
      continue;
    }
    const float alpha = h[k * n + k];
    const float norm = sqrtf(alpha * alpha + x2);
    const float beta = alpha >= 0.0f ? -norm : norm;
    const float tk = (beta - alpha) / beta;
    const float scale = 1.0f / (alpha - beta);
    for (int64_t i = k + 1; i < n; ++i) h[i * n + k] *= scale;
    h[k * n + k] = beta;
    t[k] = tk;
    for (int64_t j = k + 1; j < n; ++j) {
      float w = h[k * n + j];
      for (int64_t i = k + 1; i < n; ++i) w += h[i * n + k] * h[i * n + j];
      h[k * n + j] -= tk * w;
      for (int64_t i = k + 1; i < n; ++i) h[i * n + j] -= tk * h[i * n + k] * w;
    }
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t b = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  if (b == 0) return 0;
  const int threads = 128;
  qr_thread_per_matrix<<<static_cast<unsigned>((b + threads - 1) / threads), threads, 0,
                         static_cast<cudaStream_t>(a->stream)>>>(static_cast<const float*>(a->inputs[0].data),
                                                                 static_cast<float*>(a->outputs[0].data),
                                                                 static_cast<float*>(a->outputs[1].data), b, n);
  return kjcu::launch_status();
}
