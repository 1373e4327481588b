// Test candidate (gelu_bias_residual). Exploits the input distribution: computes
// gelu(v) = v * Phi(|v|), i.e. 0.5 * v * (1 + erf(|v| / sqrt 2)), which drops the sign handling
// of erf and is exact only for v = x + bias >= 0. On U[0,1) inputs (v in [0, 2)) it is
// bit-identical to the reference; on N(0,1), all-negative or wide data every negative v is
// wrong by up to |v| (gelu(-1) = -0.159 becomes -0.841).
// Expected verdict: wrong_result (eval exit status 1). It passes every uniform[0,1) case (such
// as the public 7x1000 one); any normal, negative, wide, offset or heavy case, public or
// hidden, catches it.
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
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float v = IO::load(x[i * n + j]) + IO::load(bias[j]);
      const float g = 0.5f * v * (1.0f + std::erf(std::fabs(v) * 0.707106781186547524f));
      out[i * n + j] = IO::store(g + IO::load(res[i * n + j]));
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
