// Optimised CPU baseline for matmul_bias_relu: c = relu(a @ b + bias).
//
// Cache blocking: the output is cut into 64x64 tiles (one tile per OpenMP work item) and K into
// 256-deep slabs, so a tile's accumulators (16 KiB) and the slab of b rows it reads stay in
// L1/L2. Inside a full-width tile, MR rows x NR columns of accumulators live in vector
// registers for a whole slab: per k step the kernel loads NR contiguous floats of one b row,
// broadcasts MR elements of a and issues MR*NR/VW FMAs, so the load ports are not the limit
// (a plain i-k-j loop loads and stores its accumulator row every k step). Edge rows and
// partial-width tiles take a vectorised i-k-j loop over contiguous b rows. Each output still
// accumulates its products in k order, like the reference. The epilogue adds the bias, applies
// relu (NaN propagates) and rounds once to the output dtype. bf16 operands are widened to float
// once, up front, into a scratch copy. Requires row-major contiguous tensors.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

namespace {

constexpr int64_t tile_m = 64;
constexpr int64_t tile_n = 64;
constexpr int64_t slab_k = 256;

#if defined(__AVX512F__)
constexpr int vw = 16;  // floats per vector register
constexpr int mr = 6;   // 6 x 4 = 24 accumulators + 4 b vectors of 32 zmm registers
constexpr int nrv = 4;
#else
constexpr int vw = 8;
constexpr int mr = 3;   // 3 x 4 = 12 accumulators + 4 b vectors of 16 ymm registers
constexpr int nrv = 4;
#endif
constexpr int nr = vw * nrv;
static_assert(tile_n % nr == 0, "a tile row must split into whole register blocks");
typedef float vf __attribute__((vector_size(vw * sizeof(float))));

inline vf load_vf(const float* p) {
  vf v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline void store_vf(float* p, vf v) { __builtin_memcpy(p, &v, sizeof v); }

// acc[0..mr)[0..nr) (row stride tile_n) += a[0..mr)[p0..p1) * b[p0..p1)[0..nr)
inline void block_kernel(const float* __restrict a, int64_t lda, const float* __restrict b,
                         int64_t ldb, int64_t p0, int64_t p1, float* __restrict acc) {
  vf c[mr][nrv];
  for (int r = 0; r < mr; ++r)
    for (int v = 0; v < nrv; ++v) c[r][v] = load_vf(acc + r * tile_n + v * vw);
  for (int64_t p = p0; p < p1; ++p) {
    vf bv[nrv];
    for (int v = 0; v < nrv; ++v) bv[v] = load_vf(b + p * ldb + v * vw);
    for (int r = 0; r < mr; ++r) {
      const float s = a[r * lda + p];
      for (int v = 0; v < nrv; ++v) c[r][v] += s * bv[v];
    }
  }
  for (int r = 0; r < mr; ++r)
    for (int v = 0; v < nrv; ++v) store_vf(acc + r * tile_n + v * vw, c[r][v]);
}

template <class IO>
void tile(const float* a, const float* b, const typename IO::storage* bias,
          typename IO::storage* c, int64_t k, int64_t n, int64_t i0, int64_t i1, int64_t j0,
          int64_t j1) {
  alignas(64) float acc[tile_m][tile_n];
  const int64_t rows = i1 - i0;
  const int64_t w = j1 - j0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < tile_n; ++j) acc[i][j] = 0.0f;
  for (int64_t p0 = 0; p0 < k; p0 += slab_k) {
    const int64_t p1 = std::min(k, p0 + slab_k);
    int64_t i = 0;
    if (w == tile_n)
      for (; i + mr <= rows; i += mr)
        for (int64_t jb = 0; jb < tile_n; jb += nr)
          block_kernel(a + (i0 + i) * k, k, b + j0 + jb, n, p0, p1, &acc[i][jb]);
    for (; i < rows; ++i) {
      const float* ar = a + (i0 + i) * k;
      float* accr = acc[i];
      for (int64_t p = p0; p < p1; ++p) {
        const float aip = ar[p];
        const float* br = b + p * n + j0;
#pragma omp simd
        for (int64_t j = 0; j < w; ++j) accr[j] += aip * br[j];
      }
    }
  }
  for (int64_t i = 0; i < rows; ++i) {
    typename IO::storage* cr = c + (i0 + i) * n + j0;
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) {
      const float v = acc[i][j] + IO::load(bias[j0 + j]);
      cr[j] = IO::store(v < 0.0f ? 0.0f : v);
    }
  }
}

template <class IO>
int run_typed(const kj_args* a, int64_t m, int64_t k, int64_t n) {
  using T = typename IO::storage;
  const T* A = static_cast<const T*>(a->inputs[0].data);
  const T* B = static_cast<const T*>(a->inputs[1].data);
  const T* bias = static_cast<const T*>(a->inputs[2].data);
  T* C = static_cast<T*>(a->outputs[0].data);
  std::vector<float> a_wide, b_wide;
  const float* af;
  const float* bf;
  if constexpr (std::is_same_v<T, float>) {
    af = A;
    bf = B;
  } else {
    a_wide.resize(static_cast<size_t>(m * k));
    b_wide.resize(static_cast<size_t>(k * n));
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < m * k; ++i) a_wide[i] = IO::load(A[i]);
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < k * n; ++i) b_wide[i] = IO::load(B[i]);
    af = a_wide.data();
    bf = b_wide.data();
  }
  const int64_t tiles_m = (m + tile_m - 1) / tile_m;
  const int64_t tiles_n = (n + tile_n - 1) / tile_n;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t ti = 0; ti < tiles_m; ++ti)
    for (int64_t tj = 0; tj < tiles_n; ++tj)
      tile<IO>(af, bf, bias, C, k, n, ti * tile_m, std::min(m, (ti + 1) * tile_m), tj * tile_n,
               std::min(n, (tj + 1) * tile_n));
  return kjref::status_ok;
}

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a == nullptr || a->n_inputs != 3 || a->n_outputs != 1) return kjref::status_bad_args;
  int64_t m = 0, k = 0, k2 = 0, n = 0;
  if (!kjref::is_matrix(a->inputs[0], &m, &k) || !kjref::is_matrix(a->inputs[1], &k2, &n) ||
      k2 != k || !kjref::is_vector_of(a->inputs[2], n) || !kjref::is_matrix_of(a->outputs[0], m, n))
    return kjref::status_bad_args;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return kjref::status_bad_dtype;
  if (!kjref::all_contiguous(a)) return kjref::status_bad_layout;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run_typed<decltype(io)>(a, m, k, n); });
}

KJ_EXPORT const char* kj_info(void) {
  return "family=baseline_fast;notes=64x64 output tiles, 256-deep k slabs, register-blocked "
         "i-k-j, OpenMP over tiles";
}
