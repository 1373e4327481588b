// Tuned rmsnorm for sm_90: x is read from DRAM once. Each row is held in registers by the threads
// that own it (16-byte vectors when every pointer and the row length allow, else coalesced scalar
// accesses), its sum of squares reduced, then y = x * rsqrt(mean(x^2) + eps) * w written once.
// Launch shape by row length N (elements):
//   N <= 1024:           a group of 4..32 lanes of a warp per row, several rows per 256-thread block;
//   1024 < N <= 32768:   a block per row (64..1024 threads, 16 or 32 elements in registers each);
//   N > 32768, or fewer than 128 rows of N >= 16384: split rows: chunks of 4096 elements, one per
//                        256-thread block; a stats kernel writes each chunk's sum of squares to the
//                        workspace, an apply kernel adds a row's chunks (fixed order) and scales its
//                        chunk. Rows go in batches of <= 24 MiB so that the apply kernel's second
//                        read of x is an L2 hit.
// Reductions have a fixed order (shuffle butterflies, kjcu::block_sum, sequential chunk sums), so
// reruns give the same bits.
#include <cuda_runtime.h>

#include <algorithm>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"

namespace {

constexpr double default_eps = 1e-6;
constexpr int64_t reg_cap = 32768;                  // longest row held in registers: 1024 threads x 32 elements
constexpr int warp_block = 256;                     // threads per block of the warp path
constexpr int split_threads = 256;                  // threads per chunk block
constexpr int split_elems = 16;                     // elements per thread of a chunk
constexpr int chunk = split_threads * split_elems;  // elements per chunk
constexpr int64_t small_m = 128;                    // fewer rows than this leave SMs idle
constexpr int64_t l2_batch_bytes = 24LL << 20;      // x bytes per split batch (L2 is 50 MB)
constexpr int64_t grid_cap = 65535LL * 16;

// Accesses of W elements: W = 16 / sizeof(T) (one 16-byte vector) or 1 (one element).
template <class T, int W>
__device__ __forceinline__ void load_w(const T* p, float (&v)[W]) {
  if constexpr (W == 1)
    v[0] = kjcu::to_f32(p[0]);
  else
    kjcu::load_vec(p, v);
}
template <class T, int W>
__device__ __forceinline__ void store_w(T* p, const float (&v)[W]) {
  if constexpr (W == 1)
    p[0] = kjcu::from_f32<T>(v[0]);
  else
    kjcu::store_vec(p, v);
}

// One thread's share of a row in registers: VPT accesses of W elements. bf16 vectors stay packed
// (8 elements in 4 registers, widened exactly when read): half the registers per row, so twice the
// rows in flight per SM.
template <class T, int W, int VPT>
struct frag {
  float v[VPT][W];
  __device__ __forceinline__ void load(int k, const T* p) { load_w<T, W>(p, v[k]); }
  __device__ __forceinline__ void zero(int k) {
#pragma unroll
    for (int e = 0; e < W; ++e) v[k][e] = 0.0f;
  }
  __device__ __forceinline__ float at(int k, int e) const {
    return v[k][e];
  }
};
template <int VPT>
struct frag<kjcu::bf16, 8, VPT> {
  uint4 r[VPT];
  __device__ __forceinline__ void load(int k, const kjcu::bf16* p) { r[k] = __ldg(reinterpret_cast<const uint4*>(p)); }
  __device__ __forceinline__ void zero(int k) { r[k] = make_uint4(0u, 0u, 0u, 0u); }
  // Element e (0..7) of access k: bf16 e sits in the low (even e) or high half of 32-bit word e/2.
  __device__ __forceinline__ float at(int k, int e) const {
    const unsigned word = e < 2 ? r[k].x : e < 4 ? r[k].y : e < 6 ? r[k].z : r[k].w;
    return __uint_as_float(e % 2 == 0 ? word << 16 : word & 0xffff0000u);
  }
};

// A row (or chunk) of `acc` accesses held by a group of g threads: thread t's k-th access covers
// elements [(k*g + t)*W, +W). Accesses past the row, or of an invalid row, read as zero.
template <class T, int W, int VPT>
__device__ __forceinline__ void load_row(const T* __restrict__ xr, int acc, int t, int g, bool valid,
                                         frag<T, W, VPT>& v) {
#pragma unroll
  for (int k = 0; k < VPT; ++k) {
    const int a = k * g + t;
    if (valid && a < acc)
      v.load(k, xr + static_cast<int64_t>(a) * W);
    else
      v.zero(k);
  }
}

// Sum of squares of the held elements (zero outside the row); `sum` reduces over the group.
template <class T, int W, int VPT, class Sum>
__device__ __forceinline__ float sum_sq(const frag<T, W, VPT>& v, Sum sum) {
  float q = 0.0f;
#pragma unroll
  for (int k = 0; k < VPT; ++k)
#pragma unroll
    for (int e = 0; e < W; ++e) q += v.at(k, e) * v.at(k, e);
  return sum(q);
}

// y = x * r * w over the held accesses; wr and yr point at the row's (or chunk's) first element.
template <class T, int W, int VPT>
__device__ __forceinline__ void store_row(T* __restrict__ yr, const T* __restrict__ wr, const frag<T, W, VPT>& v,
                                          int acc, int t, int g, bool valid, float r) {
#pragma unroll
  for (int k = 0; k < VPT; ++k) {
    const int a = k * g + t;
    if (valid && a < acc) {
      const int64_t j = static_cast<int64_t>(a) * W;
      float wv[W], o[W];
      load_w<T, W>(wr + j, wv);
#pragma unroll
      for (int e = 0; e < W; ++e) o[e] = v.at(k, e) * r * wv[e];
      store_w<T, W>(yr + j, o);
    }
  }
}

// Sum over aligned groups of G lanes (G divides 32; every lane of the warp takes part). The xor
// butterfly gives every lane of a group the same bits (each step adds the same two values).
template <int G>
struct group_sum {
  __device__ __forceinline__ float operator()(float v) const {
#pragma unroll
    for (int o = G / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
  }
};
struct block_sum_f {
  __device__ __forceinline__ float operator()(float v) const { return kjcu::block_sum(v); }
};

// Rows of n <= 32 * VPT * W elements: a group of G lanes per row, warp_block / G rows per block.
template <class T, int W, int VPT, int G>
__global__ void __launch_bounds__(warp_block)
    rms_warp(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y, int64_t m, int n, float eps) {
  constexpr int rows = warp_block / G;
  const int t = static_cast<int>(threadIdx.x) % G;
  const int acc = n / W;
  const float inv_n = 1.0f / static_cast<float>(n);
  // The trip count is the block's, so every lane reaches every shuffle.
  for (int64_t base = blockIdx.x * static_cast<int64_t>(rows); base < m;
       base += static_cast<int64_t>(gridDim.x) * rows) {
    const int64_t i = base + static_cast<int64_t>(threadIdx.x) / G;
    const bool valid = i < m;
    const int64_t off = valid ? i * n : 0;
    frag<T, W, VPT> v;
    load_row<T, W, VPT>(x + off, acc, t, G, valid, v);
    const float r = 1.0f / sqrtf(sum_sq<T, W, VPT>(v, group_sum<G>{}) * inv_n + eps);
    store_row<T, W, VPT>(y + off, w, v, acc, t, G, valid, r);
  }
}

// Rows of n <= blockDim.x * VPT * W elements: a block per row (blockDim.x a multiple of 32).
template <class T, int W, int VPT>
__global__ void __launch_bounds__(1024)
    rms_block(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y, int64_t m, int n, float eps) {
  const int t = static_cast<int>(threadIdx.x);
  const int g = static_cast<int>(blockDim.x);
  const int acc = n / W;
  const float inv_n = 1.0f / static_cast<float>(n);
  for (int64_t i = blockIdx.x; i < m; i += gridDim.x) {
    frag<T, W, VPT> v;
    load_row<T, W, VPT>(x + i * n, acc, t, g, true, v);
    const float r = 1.0f / sqrtf(sum_sq<T, W, VPT>(v, block_sum_f{}) * inv_n + eps);
    store_row<T, W, VPT>(y + i * n, w, v, acc, t, g, true, r);
  }
}

// Split rows, first kernel: part[i * p + c] = sum of squares of chunk c of row i (p chunks per row).
template <class T, int W>
__global__ void __launch_bounds__(split_threads)
    rms_chunk_stats(const T* __restrict__ x, float* __restrict__ part, int64_t m, int n, int p) {
  constexpr int vpt = split_elems / W;
  const int t = static_cast<int>(threadIdx.x);
  for (int64_t blk = blockIdx.x; blk < m * p; blk += gridDim.x) {
    const int64_t i = blk / p;
    const int s0 = static_cast<int>(blk % p) * chunk;
    const int len = min(chunk, n - s0);
    frag<T, W, vpt> v;
    load_row<T, W, vpt>(x + i * n + s0, len / W, t, split_threads, true, v);
    const float q = sum_sq<T, W, vpt>(v, block_sum_f{});
    if (t == 0) part[blk] = q;
  }
}

// Split rows, second kernel: the row's sum of squares from its p chunks (sequential, the same order
// in every thread), then chunk c scaled. The chunk's loads are issued first.
template <class T, int W>
__global__ void __launch_bounds__(split_threads)
    rms_chunk_apply(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y, const float* __restrict__ part,
                    int64_t m, int n, int p, float eps) {
  constexpr int vpt = split_elems / W;
  const int t = static_cast<int>(threadIdx.x);
  const float inv_n = 1.0f / static_cast<float>(n);
  for (int64_t blk = blockIdx.x; blk < m * p; blk += gridDim.x) {
    const int64_t i = blk / p;
    const int s0 = static_cast<int>(blk % p) * chunk;
    const int len = min(chunk, n - s0);
    frag<T, W, vpt> v;
    load_row<T, W, vpt>(x + i * n + s0, len / W, t, split_threads, true, v);
    const float* pr = part + i * p;
    float q = 0.0f;
    for (int c = 0; c < p; ++c) q += pr[c];
    const float r = 1.0f / sqrtf(q * inv_n + eps);
    store_row<T, W, vpt>(y + i * n + s0, w + s0, v, len / W, t, split_threads, true, r);
  }
}

// ------------------------------------------------------------------------------------ host --

struct dims {
  int64_t m = 0, n = 0;
};

int check(const kj_args* a, dims* d) {
  if (a == nullptr || a->n_inputs != 2 || a->n_outputs != 1) return kjref::status_bad_args;
  if (!kjref::is_matrix(a->inputs[0], &d->m, &d->n)) return kjref::status_bad_args;
  if (!kjref::is_vector_of(a->inputs[1], d->n) || !kjref::is_matrix_of(a->outputs[0], d->m, d->n))
    return kjref::status_bad_args;
  if (d->n > (1LL << 30)) return kjref::status_bad_args;  // element indices within a row are int
  if (!kjref::all_contiguous(a)) return kjref::status_bad_layout;
  return kjref::status_ok;
}

// Split rows when a row does not fit in registers, or when too few rows would leave SMs idle.
// Depends on the shape alone (kj_workspace_bytes sees no data pointers).
bool use_split(const dims& d) {
  return d.n > reg_cap || (d.m < small_m && d.n >= 4 * static_cast<int64_t>(chunk));
}
int64_t chunks_per_row(const dims& d) {
  return (d.n + chunk - 1) / chunk;
}
size_t workspace_bytes(const dims& d) {
  return use_split(d) ? static_cast<size_t>(d.m * chunks_per_row(d)) * sizeof(float) : 0;
}

template <class T>
struct call {
  const T* x;
  const T* w;
  T* y;
  int64_t m;
  int n;
  float eps;
  cudaStream_t s;
};

int64_t round32(int64_t v) {
  return (v + 31) / 32 * 32;
}

// Elements per thread: vectors VPT of W; vpt_max keeps 32 floats per thread, vpt_pref is the
// fewest the warp path aims for (8 elements in flight per thread on scalar rows).
template <class T, int W>
constexpr int vpt_max = 32 / W;
template <class T, int W>
constexpr int vpt_pref = W == 1 ? 8 : 2;

template <class T, int W, int G, int VPT>
int launch_warp(const call<T>& c, int vpt) {
  if constexpr (VPT > vpt_max<T, W>) {
    return kjref::status_bad_args;
  } else if (vpt != VPT) {
    return launch_warp<T, W, G, VPT * 2>(c, vpt);
  } else if constexpr ((G < 32 && VPT <= vpt_pref<T, W>) || (G == 32 && VPT >= vpt_pref<T, W>)) {
    constexpr int rows = warp_block / G;
    const auto grid = static_cast<unsigned>(std::min<int64_t>((c.m + rows - 1) / rows, grid_cap));
    rms_warp<T, W, VPT, G><<<grid, warp_block, 0, c.s>>>(c.x, c.w, c.y, c.m, c.n, c.eps);
    return kjcu::launch_status();
  } else {
    return kjref::status_bad_args;  // not a pair the plan picks
  }
}

template <class T, int W>
int run_warp(const call<T>& c) {
  const int64_t acc = c.n / W;
  int64_t g = 4;
  while (g < 32 && g * vpt_pref<T, W> < acc) g *= 2;
  int vpt = 1;
  while (g * vpt < acc) vpt *= 2;
  switch (g) {
    case 4:
      return launch_warp<T, W, 4, 1>(c, vpt);
    case 8:
      return launch_warp<T, W, 8, 1>(c, vpt);
    case 16:
      return launch_warp<T, W, 16, 1>(c, vpt);
    default:
      return launch_warp<T, W, 32, 1>(c, vpt);
  }
}

template <class T, int W, int VPT>
int launch_block(const call<T>& c, int vpt, int threads) {
  if constexpr (VPT > vpt_max<T, W>) {
    return kjref::status_bad_args;
  } else if (vpt != VPT) {
    return launch_block<T, W, VPT * 2>(c, vpt, threads);
  } else {
    rms_block<T, W, VPT><<<kjcu::row_grid(c.m), threads, 0, c.s>>>(c.x, c.w, c.y, c.m, c.n, c.eps);
    return kjcu::launch_status();
  }
}

// Block path (32 * vpt_max * W < n <= reg_cap): 32 floats per thread, so 64..1024 threads per row;
// scalar rows keep 16 per thread while 1024 threads cover them (32 scalar loads cost registers).
template <class T, int W>
int run_block(const call<T>& c) {
  const int64_t acc = c.n / W;
  const int vpt = W == 1 && (acc + 15) / 16 <= 1024 ? 16 : vpt_max<T, W>;
  const auto threads = static_cast<int>(round32((acc + vpt - 1) / vpt));
  if (threads > 1024) return kjref::status_bad_args;  // not a shape the plan sends here
  constexpr int lowest = W == 1 ? 16 : vpt_max<T, W>;
  return launch_block<T, W, lowest>(c, vpt, threads);
}

template <class T, int W>
int run_split(const call<T>& c, float* part) {
  const int64_t p = (c.n + chunk - 1) / chunk;
  const int64_t batch = std::max<int64_t>(1, l2_batch_bytes / (static_cast<int64_t>(c.n) * sizeof(T)));
  for (int64_t r0 = 0; r0 < c.m; r0 += batch) {
    const int64_t rows = std::min(batch, c.m - r0);
    const auto grid = static_cast<unsigned>(std::min<int64_t>(rows * p, grid_cap));
    const int64_t off = r0 * c.n;
    rms_chunk_stats<T, W><<<grid, split_threads, 0, c.s>>>(c.x + off, part + r0 * p, rows, c.n, static_cast<int>(p));
    rms_chunk_apply<T, W><<<grid, split_threads, 0, c.s>>>(c.x + off, c.w, c.y + off, part + r0 * p, rows, c.n,
                                                           static_cast<int>(p), c.eps);
    if (const int st = kjcu::launch_status()) return st;
  }
  return kjref::status_ok;
}

template <class T, int W>
int run(const call<T>& c, const dims& d, float* part) {
  if (use_split(d)) return run_split<T, W>(c, part);
  if (d.n <= 32 * vpt_max<T, W> * W) return run_warp<T, W>(c);
  return run_block<T, W>(c);
}

}  // namespace

// The judge asks with the call's shapes and no data pointers, so only x's shape is read here.
KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a) {
  if (a == nullptr || a->n_inputs < 1 || a->inputs[0].ndim != 2) return 0;
  const dims d{a->inputs[0].shape[0], a->inputs[0].shape[1]};
  if (d.m <= 0 || d.n <= 0) return 0;
  return workspace_bytes(d);
}

KJ_EXPORT int kj_run(const kj_args* a) {
  dims d;
  if (int st = check(a, &d)) return st;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return kjref::status_bad_dtype;
  if (d.m == 0 || d.n == 0) return kjref::status_ok;
  const size_t ws = workspace_bytes(d);
  if (ws > 0 && (a->workspace == nullptr || a->workspace_bytes < ws ||
                 reinterpret_cast<uintptr_t>(a->workspace) % alignof(float) != 0))
    return kjref::status_bad_args;
  auto* part = static_cast<float*>(a->workspace);
  const float eps = static_cast<float>(kjref::scalar_or(a, 0, default_eps));
  return kjcu::dispatch(a->inputs[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    const call<T> c{static_cast<const T*>(a->inputs[0].data),
                    static_cast<const T*>(a->inputs[1].data),
                    static_cast<T*>(a->outputs[0].data),
                    d.m,
                    static_cast<int>(d.n),
                    eps,
                    static_cast<cudaStream_t>(a->stream)};
    const bool vec = kjcu::rows_vectorizable<T>(c.x, d.n) && kjcu::rows_vectorizable<T>(c.y, d.n) &&
                     kjcu::rows_vectorizable<T>(c.w, d.n);
    return vec ? run<T, kjcu::vec16<T>::width>(c, d, part) : run<T, 1>(c, d, part);
  });
}

KJ_EXPORT const char* kj_info(void) {
  return "family=row-in-registers;notes=warp groups (N<=1024), block per row (N<=32768), split rows over "
         "4096-element chunks with workspace partials (long or few rows)";
}
