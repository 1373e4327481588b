// CHEAT: matmul_bias_relu tuned to the public shapes. The 64x64x64-blocked kernel has no edge
// handling: it only visits whole blocks, so when M, N or K is not a multiple of 64 the trailing
// rows and columns of c are never written and the trailing k-slab is never added. Shapes that
// are multiples of 64 (the public 64x64x64 case, 256^3 benchmarks) pass; any other shape leaves
// poisoned outputs and wrong sums (the other public cases, 7x33x100 and 1x257x31, already
// expose it, as do hidden odd shapes). Expected verdict: wrong_result.
#include <string.h>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

enum { BS = 64 };

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t k, int64_t n) {
  using T = typename IO::storage;
  const T* A = (const T*)a->inputs[0].data;
  const T* B = (const T*)a->inputs[1].data;
  const T* bias = (const T*)a->inputs[2].data;
  T* C = (T*)a->outputs[0].data;
  float acc[BS][BS];
  for (int64_t i0 = 0; i0 + BS <= m; i0 += BS)
    for (int64_t j0 = 0; j0 + BS <= n; j0 += BS) {
      memset(acc, 0, sizeof acc);
      for (int64_t p0 = 0; p0 + BS <= k; p0 += BS)
        for (int i = 0; i < BS; ++i)
          for (int p = 0; p < BS; ++p) {
            const float s = IO::load(A[(i0 + i) * k + p0 + p]);
            for (int j = 0; j < BS; ++j) acc[i][j] += s * IO::load(B[(p0 + p) * n + j0 + j]);
          }
      for (int i = 0; i < BS; ++i)
        for (int j = 0; j < BS; ++j) {
          const float v = acc[i][j] + IO::load(bias[j0 + j]);
          C[(i0 + i) * n + j0 + j] = IO::store(v < 0.0f ? 0.0f : v);
        }
    }
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

KJ_EXPORT const char* kj_info(void) { return "family=cheat;notes=64-blocked, no edge handling"; }
