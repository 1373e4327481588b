// Honest (layernorm, cuda): two kernels per call: per-row mean and 1/std into the judge-allocated
// workspace (kj_workspace_bytes = 2 M floats), then an elementwise normalisation kernel over the
// whole matrix; both on the call's stream.
// Expected: ok, no rule.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a) {
  return 2 * static_cast<size_t>(a->inputs[0].shape[0]) * sizeof(float);
}

__global__ void row_stats(const float* x, float* mean, float* rstd, int64_t m, int64_t n, float eps) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += x[i * n + j];
    const float mu = kjcu::block_sum(s) / static_cast<float>(n);
    float q = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const float d = x[i * n + j] - mu;
      q += d * d;
    }
    q = kjcu::block_sum(q);
    if (threadIdx.x == 0) {
      mean[i] = mu;
      rstd[i] = 1.0f / sqrtf(q / static_cast<float>(n) + eps);
    }
  }
}

__global__ void normalise(const float* x, const float* w, const float* b, const float* mean, const float* rstd, float* y,
                          int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < m * n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = i / n, c = i % n;
    y[i] = (x[i] - mean[r]) * rstd[r] * w[c] + b[c];
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  if (a->workspace_bytes < 2 * static_cast<size_t>(m) * sizeof(float)) return kjref::status_bad_args;
  auto s = static_cast<cudaStream_t>(a->stream);
  float* mean = static_cast<float*>(a->workspace);
  float* rstd = mean + m;
  const float* x = static_cast<const float*>(a->inputs[0].data);
  row_stats<<<kjcu::row_grid(m), 256, 0, s>>>(x, mean, rstd, m, n, static_cast<float>(kjref::scalar_or(a, 0, 1e-5)));
  normalise<<<2048, 256, 0, s>>>(x, static_cast<const float*>(a->inputs[1].data), static_cast<const float*>(a->inputs[2].data),
                                 mean, rstd, static_cast<float*>(a->outputs[0].data), m, n);
  return kjcu::launch_status();
}
