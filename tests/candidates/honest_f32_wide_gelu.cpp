// Test candidate (gelu_bias_residual). Honest, written differently from the reference: the
// normal CDF comes from erfc (Phi(v) = 0.5 * erfc(-v / sqrt 2), more accurate than
// 1 + erf for negative v), and the operations are ordered residual + v * Phi(v). Its f32 error
// differs from the reference's but is of the same size, so the conditioning allowance of the
// oracle must accept it on offset (x ~ -bias ~ 1e4) and wide (1e-4..1e4) data, where an honest
// f32 kernel misses a plain rtol of 1e-5.
// Expected verdict: correct, i.e. ok_faster or ok_not_faster (eval exit status 0); a failing
// verdict on any distribution is an oracle false positive.
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = (const T*)a->inputs[0].data;
  const T* bias = (const T*)a->inputs[1].data;
  const T* res = (const T*)a->inputs[2].data;
  T* out = (T*)a->outputs[0].data;
  const float inv_sqrt2 = 0.707106781186547524f;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float v = IO::load(bias[j]) + IO::load(x[i * n + j]);
      const float phi = 0.5f * std::erfc(-v * inv_sqrt2);
      out[i * n + j] = IO::store(IO::load(res[i * n + j]) + v * phi);
    }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_vector_of(a->inputs[1], n) || !kjref::is_matrix_of(a->inputs[2], m, n) ||
      !kjref::is_matrix_of(a->outputs[0], m, n) || !kjref::all_contiguous(a))
    return 1;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return 2;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run<decltype(io)>(a, m, n); });
}
