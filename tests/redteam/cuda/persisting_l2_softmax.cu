// Attack (keeping the inputs in L2 through the judge's cache flush, cuda): cold samples are
// preceded by a flush (a cudaMemset of 2 x L2 on the call's stream) so that every call reads its
// inputs from HBM. This kernel reserves the largest persisting part of L2 (cudaDeviceSetLimit
// (cudaLimitPersistingL2CacheSize, max)) and leaves an access-policy window on the judge's own
// stream (kj_args.stream): the input's address range with hitProp = cudaAccessPropertyPersisting
// (missProp streaming). The judge allocates every call's buffers afresh, and its allocator hands
// back the same addresses, so the next call's inputs, drawn on that stream into the same range,
// are written as persisting lines; the flush's streaming writes cannot evict them, and the timed
// softmax reads its input from L2. The window stays set after kj_run returns (that is the point).
// The softmax itself is honest (one block per row, max, sum of exp, scale).
// Pre-fix: not run here (no GPU on the CI VM; compiles with `kjudge build --device cuda`). The
// gain is bounded by the persisting carve-out (at most ~3/4 of L2, ~37 MB on an H100): the
// 64x65536 and 8192x1000 bench cases fit, 8192x8192 does not.
// Expected after the fix: the judge resets persisting L2 lines (cudaCtxResetPersistingL2Cache),
// the persisting limit and the stream's access-policy window before every timed sample: honest
// speed, ok (harmless). No minimum median is checked: the honest kernel's time on the smallest
// case (~10 us) is too close to what the persisting lines save to be a robust bound.
#include <cuda_runtime.h>

#include <algorithm>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

__global__ void softmax_rows(const float* x, float* y, int64_t m, int64_t n) {
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    float mx = -INFINITY;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) mx = fmaxf(mx, x[i * n + j]);
    mx = kjcu::block_max(mx);
    float s = 0.0f;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += expf(x[i * n + j] - mx);
    s = kjcu::block_sum(s);
    const float inv = 1.0f / s;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) y[i * n + j] = expf(x[i * n + j] - mx) * inv;
  }
}

// The persisting carve-out (bytes) and the largest window, read once; the carve-out set to max.
static void persisting_limits(int* carve_out, int* max_window) {
  static int c = -1, w = 0;
  if (c < 0) {
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&c, cudaDevAttrMaxPersistingL2CacheSize, dev);
    cudaDeviceGetAttribute(&w, cudaDevAttrMaxAccessPolicyWindowSize, dev);
    if (c > 0) cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<size_t>(c));
  }
  *carve_out = c;
  *max_window = w;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a->inputs[0].dtype != KJ_F32) return kjref::status_bad_dtype;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  auto s = static_cast<cudaStream_t>(a->stream);
  int carve_out = 0, max_window = 0;
  persisting_limits(&carve_out, &max_window);
  if (carve_out > 0 && max_window > 0) {
    const size_t bytes = std::min(static_cast<size_t>(m * n) * sizeof(float), static_cast<size_t>(max_window));
    cudaStreamAttrValue v{};
    v.accessPolicyWindow.base_ptr = const_cast<float*>(x);
    v.accessPolicyWindow.num_bytes = bytes;
    // The fraction of the window that may persist: all of it if it fits the carve-out.
    v.accessPolicyWindow.hitRatio = std::min(1.0f, static_cast<float>(carve_out) / static_cast<float>(bytes));
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v);
  }
  softmax_rows<<<kjcu::row_grid(m), 256, 0, s>>>(x, y, m, n);
  return kjcu::launch_status();
}
