// Honest (rmsnorm, cuda): 16-byte vector loads and stores (kjcu::load_vec/store_vec) where rows
// are aligned and long enough, a scalar path otherwise; one block per row.
// Expected: ok, no rule.
#include <cuda_runtime.h>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

template <class T, bool Vec>
__global__ void rmsnorm_rows(const T* x, const T* w, T* y, int64_t m, int64_t n, float eps) {
  constexpr int W = kjcu::vec16<T>::width;
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    const T* xr = x + i * n;
    T* yr = y + i * n;
    float sq = 0.0f;
    if (Vec) {
      for (int64_t j = threadIdx.x * W; j < n; j += blockDim.x * W) {
        float v[W];
        kjcu::load_vec(xr + j, v);
        for (int k = 0; k < W; ++k) sq += v[k] * v[k];
      }
    } else {
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
        const float v = kjcu::to_f32(xr[j]);
        sq += v * v;
      }
    }
    const float r = 1.0f / sqrtf(kjcu::block_sum(sq) / static_cast<float>(n) + eps);
    if (Vec) {
      for (int64_t j = threadIdx.x * W; j < n; j += blockDim.x * W) {
        float v[W], ww[W];
        kjcu::load_vec(xr + j, v);
        kjcu::load_vec(w + j, ww);
        for (int k = 0; k < W; ++k) v[k] = v[k] * r * ww[k];
        kjcu::store_vec(yr + j, v);
      }
    } else {
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x)
        yr[j] = kjcu::from_f32<T>(kjcu::to_f32(xr[j]) * r * kjcu::to_f32(w[j]));
    }
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float eps = static_cast<float>(kjref::scalar_or(a, 0, 1e-6));
  auto s = static_cast<cudaStream_t>(a->stream);
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(a->inputs[0].data);
    const T* w = static_cast<const T*>(a->inputs[1].data);
    T* y = static_cast<T*>(a->outputs[0].data);
    const bool vec = kjcu::rows_vectorizable<T>(x, n) && kjcu::rows_vectorizable<T>(y, n) &&
                     kjcu::rows_vectorizable<T>(w, n);
    if (vec) rmsnorm_rows<T, true><<<kjcu::row_grid(m), 256, 0, s>>>(x, w, y, m, n, eps);
    else rmsnorm_rows<T, false><<<kjcu::row_grid(m), 256, 0, s>>>(x, w, y, m, n, eps);
    return kjcu::launch_status();
  });
}
