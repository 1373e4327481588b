// Honest batched_qr for the GPU: Householder QR in LAPACK's xGEQRF form (H[B,n,n] row-major, R on
// and above the diagonal, the reflectors below, tau[B,n]), by two algorithm families chosen by n:
//   - n <= 192: one block per matrix, the whole matrix in shared memory (column-major, odd leading
//     dimension so that both row and column walks are free of bank conflicts), unblocked xGEQR2:
//     no global traffic between the load and the store;
//   - larger n: blocked right-looking Householder QR with compact-WY trailing updates. Per panel
//     of NB columns (32 up to n = 1024, then 16, 8, 4 so that a panel fits shared memory): a
//     panel kernel (one block per matrix) factors the panel in shared memory and forms the
//     NB x NB triangular T of xLARFT (H_1...H_NB = I - V T V^T); an update kernel (one block per
//     matrix and 64 trailing columns) applies Q^T = I - V T^T V^T to its columns:
//     W = V^T C, W = T^T W, C -= V W, with V in shared memory (16-byte broadcast reads).
//   - n > 8192 (never drawn by the suite): the unblocked order straight on global memory.
// Reflectors as xLARFG: tau = 0 when the column below the diagonal is zero; beta = -sign(alpha)
// sqrt(alpha^2 + |x|^2), tau = (beta - alpha) / beta, v = x / (alpha - beta). f32 arithmetic, no
// tensor cores, every reduction in a fixed order (warp butterflies, then warps in order), so a
// call run twice gives the same bits. The first panel reads A and writes H, so A is never copied.
#include <cuda_runtime.h>

#include <cstdint>

#include "kjudge/candidate.h"
#include "kjudge/cuda_util.cuh"
#include "kjudge/reference_util.h"

namespace {

constexpr int k_threads = 256;
constexpr int k_warps = k_threads / 32;
constexpr int k_tile = 64;                    // trailing columns per update block
constexpr int k_groups = k_threads / k_tile;  // row groups of an update block
constexpr int64_t k_small_n = 192;            // whole matrix in shared memory up to here (148 KB)
constexpr int64_t k_blocked_n = 8192;         // NB = 4 panels fit shared memory up to here

// Sum over a warp; xor butterflies give every lane the same bits (IEEE addition commutes).
__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Sum over the block, the same bits in every thread; `red` holds k_warps floats.
__device__ float block_sum(float v, float* red) {
  v = warp_sum(v);
  __syncthreads();  // earlier readers of red are done
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  float s = 0.0f;
  for (int w = 0; w < k_warps; ++w) s += red[w];
  return s;
}

// Unblocked Householder QR (xGEQR2 order) of the m x ncols panel P in shared memory, column-major
// with leading dimension ld (P[c * ld + i]); the panel's diagonal is its row c for column c. The
// reflectors replace the panel below the diagonal, R on and above; tau_s[c] their factors.
__device__ void factor_panel(float* P, int ld, int m, int ncols, float* tau_s, float* red) {
  const int lane = static_cast<int>(threadIdx.x & 31), warp = static_cast<int>(threadIdx.x >> 5);
  for (int kk = 0; kk < ncols && kk < m; ++kk) {
    __syncthreads();  // the previous column's updates are complete
    float* pk = P + static_cast<int64_t>(kk) * ld;
    float part = 0.0f;
    for (int i = kk + 1 + static_cast<int>(threadIdx.x); i < m; i += k_threads) part += pk[i] * pk[i];
    const float xnorm2 = block_sum(part, red);
    float t = 0.0f;
    if (xnorm2 != 0.0f) {  // the same value in every thread: a uniform branch
      const float alpha = pk[kk];
      const float norm = sqrtf(alpha * alpha + xnorm2);
      const float beta = alpha >= 0.0f ? -norm : norm;
      t = (beta - alpha) / beta;
      const float scale = 1.0f / (alpha - beta);
      for (int i = kk + 1 + static_cast<int>(threadIdx.x); i < m; i += k_threads) pk[i] *= scale;
      __syncthreads();  // v is complete and every thread has read alpha
      // H_kk applied to the panel's later columns, a warp per column: w = v^T p_j (v_kk = 1).
      for (int j = kk + 1 + warp; j < ncols; j += k_warps) {
        float* pj = P + static_cast<int64_t>(j) * ld;
        float s = lane == 0 ? pj[kk] : 0.0f;
        for (int i = kk + 1 + lane; i < m; i += 32) s += pk[i] * pj[i];
        const float tw = t * warp_sum(s);
        for (int i = kk + 1 + lane; i < m; i += 32) pj[i] -= tw * pk[i];
        if (lane == 0) pj[kk] -= tw;
      }
      if (threadIdx.x == 0) pk[kk] = beta;  // nobody reads pk[kk] again in this column
    }
    if (threadIdx.x == 0) tau_s[kk] = t;
  }
  __syncthreads();
}

// Small n: one block per matrix, the whole matrix in shared memory.
__global__ void __launch_bounds__(k_threads)
    qr_in_shared(const float* __restrict__ A, float* __restrict__ H, float* __restrict__ tau, int n) {
  extern __shared__ __align__(16) float sm[];
  const int ld = n | 1;
  float* P = sm;
  float* tau_s = P + static_cast<int64_t>(ld) * n;
  float* red = tau_s + n;
  const int64_t nn = static_cast<int64_t>(n) * n;
  const float* a = A + blockIdx.x * nn;
  float* h = H + blockIdx.x * nn;
  for (int64_t e = threadIdx.x; e < nn; e += k_threads) {
    const int64_t i = e / n, c = e % n;
    P[c * ld + i] = a[e];
  }
  factor_panel(P, ld, n, n, tau_s, red);
  for (int64_t e = threadIdx.x; e < nn; e += k_threads) {
    const int64_t i = e / n, c = e % n;
    h[e] = P[c * ld + i];
  }
  for (int c = static_cast<int>(threadIdx.x); c < n; c += k_threads)
    tau[blockIdx.x * static_cast<int64_t>(n) + c] = tau_s[c];
}

// The panel's T (xLARFT, forward, columnwise) from its reflectors in P: T[i][i] = tau_i,
// T[0:i, i] = -tau_i T[0:i, 0:i] (V[:, 0:i]^T v_i). Writes NB x NB (zero outside the triangle).
template <int NB>
__device__ void build_t(const float* P, int ld, int m, int nbk, const float* tau_s, float* G, float* T, float* out) {
  const int lane = static_cast<int>(threadIdx.x & 31), warp = static_cast<int>(threadIdx.x >> 5);
  // G[c][i] = v_c^T v_i for c < i: v_i is 1 at row i and zero above, v_c is P[c][i] at row i.
  for (int pair = warp; pair < nbk * nbk; pair += k_warps) {
    const int c = pair / nbk, i = pair % nbk;
    if (c >= i) continue;  // the same for the whole warp
    const float* pc = P + static_cast<int64_t>(c) * ld;
    const float* pi = P + static_cast<int64_t>(i) * ld;
    float s = lane == 0 ? pc[i] : 0.0f;
    for (int r = i + 1 + lane; r < m; r += 32) s += pc[r] * pi[r];
    s = warp_sum(s);
    if (lane == 0) G[c * NB + i] = s;
  }
  for (int e = static_cast<int>(threadIdx.x); e < NB * NB; e += k_threads) T[e] = 0.0f;
  __syncthreads();
  for (int i = 0; i < nbk; ++i) {
    const int r = static_cast<int>(threadIdx.x);
    if (r < i) {
      float s = 0.0f;
      for (int c = r; c < i; ++c) s += T[r * NB + c] * G[c * NB + i];
      T[r * NB + i] = -tau_s[i] * s;
    } else if (r == i) {
      T[i * NB + i] = tau_s[i];
    }
    __syncthreads();
  }
  for (int e = static_cast<int>(threadIdx.x); e < NB * NB; e += k_threads) out[e] = T[e];
}

// One block per matrix: factor columns [k0, k0 + nbk) in rows [k0, n), read from `src` (A for
// the first panel, else H), written to H with tau; T into the workspace.
template <int NB>
__global__ void __launch_bounds__(k_threads)
    panel_kernel(const float* __restrict__ src, float* __restrict__ H, float* __restrict__ tau,
                 float* __restrict__ t_ws, int n, int k0) {
  extern __shared__ __align__(16) float sm[];
  const int m = n - k0, nbk = min(NB, m), ld = m | 1;
  float* P = sm;
  float* tau_s = P + static_cast<int64_t>(ld) * NB;
  float* red = tau_s + NB;
  float* G = red + k_warps;
  float* T = G + NB * NB;
  const int64_t nn = static_cast<int64_t>(n) * n;
  const float* s = src + blockIdx.x * nn;
  float* h = H + blockIdx.x * nn;
  for (int64_t e = threadIdx.x; e < static_cast<int64_t>(m) * nbk; e += k_threads) {
    const int64_t i = e / nbk, c = e % nbk;
    P[c * ld + i] = s[(k0 + i) * n + k0 + c];
  }
  factor_panel(P, ld, m, nbk, tau_s, red);
  for (int64_t e = threadIdx.x; e < static_cast<int64_t>(m) * nbk; e += k_threads) {
    const int64_t i = e / nbk, c = e % nbk;
    h[(k0 + i) * n + k0 + c] = P[c * ld + i];
  }
  for (int c = static_cast<int>(threadIdx.x); c < nbk; c += k_threads)
    tau[blockIdx.x * static_cast<int64_t>(n) + k0 + c] = tau_s[c];
  build_t<NB>(P, ld, m, nbk, tau_s, G, T, t_ws + blockIdx.x * static_cast<int64_t>(NB * NB));
}

// One block per matrix and k_tile trailing columns: C = src[k0:n, j0:j0+jc] becomes
// H[k0:n, j0:j0+jc] = C - V T^T V^T C, with V (the panel's reflectors, unit diagonal) from H.
template <int NB>
__global__ void __launch_bounds__(k_threads)
    update_kernel(const float* __restrict__ src, float* __restrict__ H, const float* __restrict__ t_ws, int n, int k0) {
  extern __shared__ __align__(16) float sm[];
  const int m = n - k0, nbk = min(NB, m);
  const int j0 = k0 + nbk + static_cast<int>(blockIdx.y) * k_tile;
  const int jc = min(k_tile, n - j0);
  float* Vs = sm;                                 // m x NB, row-major
  float* Ts = Vs + static_cast<int64_t>(m) * NB;  // NB x NB
  float* Red = Ts + NB * NB;                      // k_groups x NB x k_tile
  float* W = Red + k_groups * NB * k_tile;        // NB x k_tile
  const int64_t nn = static_cast<int64_t>(n) * n;
  const float* s = src + blockIdx.x * nn;
  float* h = H + blockIdx.x * nn;
  for (int64_t e = threadIdx.x; e < static_cast<int64_t>(m) * NB; e += k_threads) {
    const int64_t i = e / NB, p = e % NB;
    float v = 0.0f;
    if (p < nbk) v = i == p ? 1.0f : (i > p ? h[(k0 + i) * n + k0 + p] : 0.0f);
    Vs[e] = v;
  }
  for (int e = static_cast<int>(threadIdx.x); e < NB * NB; e += k_threads)
    Ts[e] = t_ws[blockIdx.x * static_cast<int64_t>(NB * NB) + e];
  __syncthreads();
  const int j = static_cast<int>(threadIdx.x) % k_tile, g = static_cast<int>(threadIdx.x) / k_tile;
  const bool col = j < jc;
  const float* sc = s + j0 + j;  // column j0 + j of src, row r at sc[r * n]
  float* hc = h + j0 + j;
  float acc[NB];
#pragma unroll
  for (int p = 0; p < NB; ++p) acc[p] = 0.0f;
  for (int i = g; i < m; i += k_groups) {
    const float c = col ? sc[static_cast<int64_t>(k0 + i) * n] : 0.0f;
    const float4* vr = reinterpret_cast<const float4*>(Vs + static_cast<int64_t>(i) * NB);
#pragma unroll
    for (int q = 0; q < NB / 4; ++q) {
      const float4 v = vr[q];
      acc[4 * q] += v.x * c;
      acc[4 * q + 1] += v.y * c;
      acc[4 * q + 2] += v.z * c;
      acc[4 * q + 3] += v.w * c;
    }
  }
#pragma unroll
  for (int p = 0; p < NB; ++p) Red[(g * NB + p) * k_tile + j] = acc[p];
  __syncthreads();
  for (int e = static_cast<int>(threadIdx.x); e < NB * k_tile; e += k_threads) {
    float w = 0.0f;
    for (int r = 0; r < k_groups; ++r) w += Red[r * NB * k_tile + e];
    W[e] = w;  // W[p][jj], e = p * k_tile + jj
  }
  __syncthreads();
  for (int e = static_cast<int>(threadIdx.x); e < NB * k_tile; e += k_threads) {
    const int p = e / k_tile, jj = e % k_tile;
    float w = 0.0f;
    for (int q = 0; q <= p; ++q) w += Ts[q * NB + p] * W[q * k_tile + jj];
    Red[e] = w;  // (T^T W)[p][jj]
  }
  __syncthreads();
  float w2[NB];
#pragma unroll
  for (int p = 0; p < NB; ++p) w2[p] = Red[p * k_tile + j];
  if (!col) return;  // no barrier follows
  for (int i = g; i < m; i += k_groups) {
    const float4* vr = reinterpret_cast<const float4*>(Vs + static_cast<int64_t>(i) * NB);
    float d = 0.0f;
#pragma unroll
    for (int q = 0; q < NB / 4; ++q) {
      const float4 v = vr[q];
      d += v.x * w2[4 * q] + v.y * w2[4 * q + 1] + v.z * w2[4 * q + 2] + v.w * w2[4 * q + 3];
    }
    const int64_t at = static_cast<int64_t>(k0 + i) * n;
    hc[at] = sc[at] - d;
  }
}

// n > k_blocked_n: one block per matrix, xGEQR2 straight on H in global memory (copied from A).
__global__ void __launch_bounds__(k_threads)
    qr_in_global(const float* __restrict__ A, float* __restrict__ H, float* __restrict__ tau, int64_t n) {
  __shared__ float red[k_warps];
  const int64_t nn = n * n;
  const float* a = A + blockIdx.x * nn;
  float* h = H + blockIdx.x * nn;
  for (int64_t e = threadIdx.x; e < nn; e += k_threads) h[e] = a[e];
  for (int64_t k = 0; k < n; ++k) {
    __syncthreads();
    float part = 0.0f;
    for (int64_t i = k + 1 + threadIdx.x; i < n; i += k_threads) part += h[i * n + k] * h[i * n + k];
    const float xnorm2 = block_sum(part, red);
    float t = 0.0f;
    if (xnorm2 != 0.0f) {
      const float alpha = h[k * n + k];
      const float norm = sqrtf(alpha * alpha + xnorm2);
      const float beta = alpha >= 0.0f ? -norm : norm;
      t = (beta - alpha) / beta;
      const float scale = 1.0f / (alpha - beta);
      for (int64_t i = k + 1 + threadIdx.x; i < n; i += k_threads) h[i * n + k] *= scale;
      __syncthreads();
      for (int64_t j = k + 1 + threadIdx.x; j < n; j += k_threads) {
        float w = h[k * n + j];
        for (int64_t i = k + 1; i < n; ++i) w += h[i * n + k] * h[i * n + j];
        const float tw = t * w;
        h[k * n + j] -= tw;
        for (int64_t i = k + 1; i < n; ++i) h[i * n + j] -= tw * h[i * n + k];
      }
      __syncthreads();
      if (threadIdx.x == 0) h[k * n + k] = beta;
    }
    if (threadIdx.x == 0) tau[blockIdx.x * n + k] = t;
  }
}

struct shape {
  int64_t b = 0, n = 0;
};

int check_args(const kj_args* a, shape* d) {
  if (a == nullptr || a->n_inputs != 1 || a->n_outputs != 2) return kjref::status_bad_args;
  const kj_tensor& A = a->inputs[0];
  const kj_tensor& H = a->outputs[0];
  const kj_tensor& tau = a->outputs[1];
  if (A.ndim != 3 || A.shape[1] != A.shape[2] || A.shape[0] < 0 || A.shape[1] < 0) return kjref::status_bad_args;
  d->b = A.shape[0];
  d->n = A.shape[1];
  if (H.ndim != 3 || H.shape[0] != d->b || H.shape[1] != d->n || H.shape[2] != d->n) return kjref::status_bad_args;
  if (tau.ndim != 2 || tau.shape[0] != d->b || tau.shape[1] != d->n) return kjref::status_bad_args;
  if (!kjref::all_contiguous(a)) return kjref::status_bad_layout;
  if (!kjref::same_dtype(a, KJ_F32)) return kjref::status_bad_dtype;
  if (d->b > 0x7fffffffLL) return kjref::status_bad_args;
  return kjref::status_ok;
}

// Panel width: the panel (n x NB floats) and the update's V stay within 128 KB of shared memory.
int panel_width(int64_t n) {
  return n <= 1024 ? 32 : n <= 2048 ? 16 : n <= 4096 ? 8 : 4;
}

template <class K>
bool allow_shared(K kernel, size_t bytes) {
  return bytes <= 48 * 1024 || cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                    static_cast<int>(bytes)) == cudaSuccess;
}

template <int NB>
int run_blocked(const float* A, float* H, float* tau, float* t_ws, const shape& d, cudaStream_t st) {
  const int n = static_cast<int>(d.n);
  const auto b = static_cast<unsigned>(d.b);
  const size_t panel_smem = (static_cast<size_t>(n | 1) * NB + NB + k_warps + 2 * NB * NB) * sizeof(float);
  const size_t update_smem =
      (static_cast<size_t>(n) * NB + NB * NB + static_cast<size_t>(k_groups + 1) * NB * k_tile) * sizeof(float);
  if (!allow_shared(panel_kernel<NB>, panel_smem) || !allow_shared(update_kernel<NB>, update_smem))
    return kjcu::launch_status();
  for (int k0 = 0; k0 < n; k0 += NB) {
    const float* src = k0 == 0 ? A : H;
    const int m = n - k0;
    const size_t p_smem = (static_cast<size_t>(m | 1) * NB + NB + k_warps + 2 * NB * NB) * sizeof(float);
    panel_kernel<NB><<<b, k_threads, p_smem, st>>>(src, H, tau, t_ws, n, k0);
    const int rest = m - NB;
    if (rest <= 0) continue;
    const size_t u_smem =
        (static_cast<size_t>(m) * NB + NB * NB + static_cast<size_t>(k_groups + 1) * NB * k_tile) * sizeof(float);
    const dim3 grid(b, static_cast<unsigned>((rest + k_tile - 1) / k_tile));
    update_kernel<NB><<<grid, k_threads, u_smem, st>>>(src, H, t_ws, n, k0);
  }
  return kjcu::launch_status();
}

}  // namespace

KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a) {
  shape d;
  if (check_args(a, &d) != kjref::status_ok || d.n <= k_small_n || d.n > k_blocked_n) return 0;
  const auto nb = static_cast<size_t>(panel_width(d.n));
  return static_cast<size_t>(d.b) * nb * nb * sizeof(float);
}

KJ_EXPORT int kj_run(const kj_args* a) {
  shape d;
  if (const int s = check_args(a, &d)) return s;
  if (d.b == 0 || d.n == 0) return kjref::status_ok;
  const auto* A = static_cast<const float*>(a->inputs[0].data);
  auto* H = static_cast<float*>(a->outputs[0].data);
  auto* tau = static_cast<float*>(a->outputs[1].data);
  const auto st = static_cast<cudaStream_t>(a->stream);
  const auto b = static_cast<unsigned>(d.b);
  if (d.n <= k_small_n) {
    const int n = static_cast<int>(d.n);
    const size_t smem = (static_cast<size_t>(n | 1) * n + n + k_warps) * sizeof(float);
    if (!allow_shared(qr_in_shared, smem)) return kjcu::launch_status();
    qr_in_shared<<<b, k_threads, smem, st>>>(A, H, tau, n);
    return kjcu::launch_status();
  }
  if (d.n > k_blocked_n) {
    qr_in_global<<<b, k_threads, 0, st>>>(A, H, tau, d.n);
    return kjcu::launch_status();
  }
  auto* t_ws = static_cast<float*>(a->workspace);
  if (t_ws == nullptr || a->workspace_bytes < kj_workspace_bytes(a)) return kjref::status_bad_args;
  switch (panel_width(d.n)) {
    case 32:
      return run_blocked<32>(A, H, tau, t_ws, d, st);
    case 16:
      return run_blocked<16>(A, H, tau, t_ws, d, st);
    case 8:
      return run_blocked<8>(A, H, tau, t_ws, d, st);
    default:
      return run_blocked<4>(A, H, tau, t_ws, d, st);
  }
}

KJ_EXPORT const char* kj_info(void) {
  return "family=blocked-householder;notes=n<=192: one block per matrix in shared memory (xGEQR2); larger n: "
         "panels of 32/16/8/4 columns factored in shared memory, compact-WY trailing updates (V T^T V^T C) over "
         "64-column tiles, f32 CUDA cores, fixed-order reductions";
}
