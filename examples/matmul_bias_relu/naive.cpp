// Honest, naive matmul_bias_relu: the textbook triple loop in i-j-k order (a dot product per
// output, walking b down a column with stride N, so it is cache-unfriendly), float accumulator,
// then bias and relu. Expected verdict: correct (ok_not_faster against the reference).
// GCC compiles this dot product to separate multiply and add where the reference's loop gets
// FMAs, so its rounding differs; an oracle whose allowance is the reference's own error in the
// same row can reject it when rows are very short (N <= 3) and K is large (a false positive).
#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t k, int64_t n) {
  using T = typename IO::storage;
  const T* A = (const T*)a->inputs[0].data;
  const T* B = (const T*)a->inputs[1].data;
  const T* bias = (const T*)a->inputs[2].data;
  T* C = (T*)a->outputs[0].data;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int64_t p = 0; p < k; ++p) acc += IO::load(A[i * k + p]) * IO::load(B[p * n + j]);
      acc += IO::load(bias[j]);
      C[i * n + j] = IO::store(acc < 0.0f ? 0.0f : acc);
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

KJ_EXPORT const char* kj_info(void) { return "family=naive;notes=i-j-k dot products"; }
