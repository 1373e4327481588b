// Honest, naive rmsnorm for the GPU: one kernel per step. A kernel with one block per row writes
// each row's 1/rms into the workspace the judge allocates (kj_workspace_bytes), then an
// elementwise kernel scales with one thread per element (a 64-bit division and modulo each).
// Expected verdict: correct; slower than the reference's single kernel.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

template <class T>
__global__ void row_rstd(const T* x, float* r, int64_t m, int64_t n, float eps) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    float sq = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const float v = kjcu::to_f32(x[i * n + j]);
      sq += v * v;
    }
    sq = kjcu::block_sum(sq);
    if (threadIdx.x == 0) r[i] = 1.0f / sqrtf(sq / static_cast<float>(n) + eps);
  }
}

template <class T>
__global__ void scale(const T* x, const T* w, const float* r, T* y, int64_t total, int64_t n) {
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x)
    y[k] = kjcu::from_f32<T>(kjcu::to_f32(x[k]) * r[k / n] * kjcu::to_f32(w[k % n]));
}

KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a) {
  return a->n_inputs > 0 ? static_cast<size_t>(a->inputs[0].shape[0]) * sizeof(float) : 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m = 0, n = 0;
  if (a->n_inputs != 2 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n)) return kjref::status_bad_args;
  if (a->workspace_bytes < static_cast<size_t>(m) * sizeof(float)) return kjref::status_bad_args;
  const float eps = static_cast<float>(kjref::scalar_or(a, 0, 1e-6));
  const auto s = static_cast<cudaStream_t>(a->stream);
  const int64_t total = m * n;
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(a->inputs[0].data);
    auto* r = static_cast<float*>(a->workspace);
    row_rstd<T><<<kjcu::row_grid(m), 256, 0, s>>>(x, r, m, n, eps);
    const unsigned blocks = static_cast<unsigned>(std::min<int64_t>((total + 255) / 256, 65535LL * 8));
    scale<T><<<blocks, 256, 0, s>>>(x, static_cast<const T*>(a->inputs[1].data), r, static_cast<T*>(a->outputs[0].data), total, n);
    return kjcu::launch_status();
  });
}

KJ_EXPORT const char* kj_info(void) { return "family=naive;notes=row kernel into the workspace, then elementwise"; }
