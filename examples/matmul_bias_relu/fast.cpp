// Honest fast matmul_bias_relu for one core: packed operands and a register-blocked
// micro-kernel.
//   - b is packed once into column panels of NR floats, k-major (Bp[panel][p][NR], zero-padded
//     past N), a into row panels of MR floats (Ap[panel][p][MR], zero-padded past M); bf16 is
//     widened to float while packing, so the kernel only sees float.
//   - the micro-kernel keeps an MR x NR block of c in vector registers for the whole k loop:
//     per k step, NR/VW vector loads of b and MR broadcasts of a feed MR*NR/VW FMAs, so loads
//     stay well below the FMA rate (the reference reloads and stores its accumulator row for
//     every k).
//   - loop order: b panel outer (K*NR*4 bytes, stays in L1/L2), a panels inner.
// Each output still accumulates its products in k order. The epilogue adds the bias, applies
// relu (NaN propagates) and writes only the valid part of edge blocks.
// Expected verdict: correct; several times faster than the reference on one core.
#include <algorithm>
#include <vector>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

#if defined(__AVX512F__)
enum { VW = 16, MR = 8, NRV = 2 };  // 16 zmm accumulators of 32
#else
enum { VW = 8, MR = 6, NRV = 2 };   // 12 ymm accumulators of 16
#endif
enum { NR = VW * NRV };
typedef float vf __attribute__((vector_size(VW * sizeof(float))));

static inline vf load_vf(const float* p) {
  vf v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

template <class IO>
static void micro_kernel(const float* __restrict ap, const float* __restrict bp, int64_t k,
                         const typename IO::storage* bias, typename IO::storage* c, int64_t ldc,
                         int64_t rows, int64_t cols) {
  vf acc[MR][NRV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NRV; ++v) acc[r][v] = vf{};
  for (int64_t p = 0; p < k; ++p) {
    vf b[NRV];
    for (int v = 0; v < NRV; ++v) b[v] = load_vf(bp + p * NR + v * VW);
    for (int r = 0; r < MR; ++r) {
      const float s = ap[p * MR + r];
      for (int v = 0; v < NRV; ++v) acc[r][v] += s * b[v];
    }
  }
  alignas(64) float tile[MR][NR];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NRV; ++v) __builtin_memcpy(&tile[r][v * VW], &acc[r][v], sizeof(vf));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j) {
      const float x = tile[r][j] + IO::load(bias[j]);
      c[r * ldc + j] = IO::store(x < 0.0f ? 0.0f : x);
    }
}

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t k, int64_t n) {
  using T = typename IO::storage;
  const T* A = (const T*)a->inputs[0].data;
  const T* B = (const T*)a->inputs[1].data;
  const T* bias = (const T*)a->inputs[2].data;
  T* C = (T*)a->outputs[0].data;
  const int64_t pm = (m + MR - 1) / MR, pn = (n + NR - 1) / NR;
  std::vector<float> ap((size_t)(pm * MR * k)), bp((size_t)(pn * NR * k));
  for (int64_t ip = 0; ip < pm; ++ip)
    for (int64_t p = 0; p < k; ++p)
      for (int r = 0; r < MR; ++r) {
        const int64_t i = ip * MR + r;
        ap[(ip * k + p) * MR + r] = i < m ? IO::load(A[i * k + p]) : 0.0f;
      }
  for (int64_t jp = 0; jp < pn; ++jp)
    for (int64_t p = 0; p < k; ++p)
      for (int c = 0; c < NR; ++c) {
        const int64_t j = jp * NR + c;
        bp[(jp * k + p) * NR + c] = j < n ? IO::load(B[p * n + j]) : 0.0f;
      }
  for (int64_t jp = 0; jp < pn; ++jp)
    for (int64_t ip = 0; ip < pm; ++ip)
      micro_kernel<IO>(ap.data() + ip * k * MR, bp.data() + jp * k * NR, k, bias + jp * NR,
                       C + ip * MR * n + jp * NR, n, std::min<int64_t>(MR, m - ip * MR),
                       std::min<int64_t>(NR, n - jp * NR));
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, k, k2, n;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &k) ||
      !kjref::is_matrix(a->inputs[1], &k2, &n) || k2 != k ||
      !kjref::is_vector_of(a->inputs[2], n) || !kjref::is_matrix_of(a->outputs[0], m, n) ||
      !kjref::all_contiguous(a))
    return 1;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return 2;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run<decltype(io)>(a, m, k, n); });
}

KJ_EXPORT const char* kj_info(void) {
  return "family=packed_microkernel;notes=packed panels, MRxNR register block, single thread";
}
