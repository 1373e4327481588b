// Honest, naive softmax for the GPU: one kernel per step. A row kernel (one block per row) writes
// each row's max and sum of exp(x - max) into the workspace the judge allocates
// (kj_workspace_bytes), then an elementwise kernel writes exp(x - max) / sum with one thread per
// element. Three reads of x and a second launch.
// Expected verdict: correct; slower than the reference's single kernel.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

template <class T>
__global__ void row_stats(const T* x, float2* st, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    float mx = -INFINITY;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) mx = fmaxf(mx, kjcu::to_f32(x[i * n + j]));
    mx = kjcu::block_max(mx);
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += expf(kjcu::to_f32(x[i * n + j]) - mx);
    s = kjcu::block_sum(s);
    if (threadIdx.x == 0) st[i] = make_float2(mx, s);
  }
}

template <class T>
__global__ void normalise(const T* x, const float2* st, T* y, int64_t total, int64_t n) {
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < total;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float2 s = st[k / n];
    y[k] = kjcu::from_f32<T>(expf(kjcu::to_f32(x[k]) - s.x) / s.y);
  }
}

KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a) {
  return a->n_inputs > 0 ? static_cast<size_t>(a->inputs[0].shape[0]) * sizeof(float2) : 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m = 0, n = 0;
  if (a->n_inputs != 1 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n)) return kjref::status_bad_args;
  if (a->workspace_bytes < static_cast<size_t>(m) * sizeof(float2)) return kjref::status_bad_args;
  const auto s = static_cast<cudaStream_t>(a->stream);
  const int64_t total = m * n;
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(a->inputs[0].data);
    auto* st = static_cast<float2*>(a->workspace);
    row_stats<T><<<kjcu::row_grid(m), 256, 0, s>>>(x, st, m, n);
    const unsigned blocks = static_cast<unsigned>(std::min<int64_t>((total + 255) / 256, 65535LL * 8));
    normalise<T><<<blocks, 256, 0, s>>>(x, st, static_cast<T*>(a->outputs[0].data), total, n);
    return kjcu::launch_status();
  });
}

KJ_EXPORT const char* kj_info(void) { return "family=naive;notes=row statistics kernel, then elementwise"; }
