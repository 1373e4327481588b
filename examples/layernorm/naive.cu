// Honest, naive layernorm for the GPU: one kernel per step. A stats kernel (one block per row,
// two passes: mean, then mean of squared deviations) writes (mean, rstd) per row into the
// workspace the judge allocates (kj_workspace_bytes), then an elementwise kernel normalises with
// one thread per element. Three reads of x instead of one, and a second launch.
// Expected verdict: correct; slower than the reference's single kernel.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

template <class T>
__global__ void row_stats(const T* x, float2* stats, int64_t m, int64_t n, float eps) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    const T* xr = x + i * n;
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += kjcu::to_f32(xr[j]);
    const float mean = kjcu::block_sum(s) / static_cast<float>(n);
    float q = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const float d = kjcu::to_f32(xr[j]) - mean;
      q += d * d;
    }
    const float var = kjcu::block_sum(q) / static_cast<float>(n);
    if (threadIdx.x == 0) stats[i] = make_float2(mean, 1.0f / sqrtf(var + eps));
  }
}

template <class T>
__global__ void normalise(const T* x, const T* w, const T* b, const float2* stats, T* y, int64_t total, int64_t n) {
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float2 st = stats[k / n];
    const int64_t j = k % n;
    y[k] = kjcu::from_f32<T>((kjcu::to_f32(x[k]) - st.x) * st.y * kjcu::to_f32(w[j]) + kjcu::to_f32(b[j]));
  }
}

KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a) {
  return a->n_inputs > 0 ? static_cast<size_t>(a->inputs[0].shape[0]) * sizeof(float2) : 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m = 0, n = 0;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n)) return kjref::status_bad_args;
  if (a->workspace_bytes < static_cast<size_t>(m) * sizeof(float2)) return kjref::status_bad_args;
  const float eps = static_cast<float>(kjref::scalar_or(a, 0, 1e-5));
  auto* stats = static_cast<float2*>(a->workspace);
  const auto s = static_cast<cudaStream_t>(a->stream);
  const int64_t total = m * n;
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(a->inputs[0].data);
    row_stats<T><<<kjcu::row_grid(m), 256, 0, s>>>(x, stats, m, n, eps);
    const unsigned blocks = static_cast<unsigned>(std::min<int64_t>((total + 255) / 256, 65535LL * 8));
    normalise<T><<<blocks, 256, 0, s>>>(x, static_cast<const T*>(a->inputs[1].data), static_cast<const T*>(a->inputs[2].data),
                                        stats, static_cast<T*>(a->outputs[0].data), total, n);
    return kjcu::launch_status();
  });
}

KJ_EXPORT const char* kj_info(void) { return "family=naive;notes=stats kernel into the workspace, then elementwise"; }
