// Test candidate (gelu_bias_residual). Stands for a race: honest GELU on its process's odd calls,
// and on its even calls the first output element is off by 1.0. A checked case's two calls on the
// same inputs (public-0 is its process's calls 1 and 2) then give a passing and a failing output.
// Expected verdict: wrong_result, rule nondeterministic (the repeat fails where the first call
// passed; the evidence names the repeat's own rule, tolerance).
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

static long g_calls = 0;

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n, bool wrong) {
  using T = typename IO::storage;
  const T* x = (const T*)a->inputs[0].data;
  const T* bias = (const T*)a->inputs[1].data;
  const T* res = (const T*)a->inputs[2].data;
  T* out = (T*)a->outputs[0].data;
  const float inv_sqrt2 = 0.707106781186547524f;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float v = IO::load(bias[j]) + IO::load(x[i * n + j]);
      out[i * n + j] = IO::store(IO::load(res[i * n + j]) + v * 0.5f * (1.0f + std::erf(v * inv_sqrt2)));
    }
  if (wrong && m * n > 0) out[0] = IO::store(IO::load(out[0]) + 1.0f);
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_vector_of(a->inputs[1], n) || !kjref::is_matrix_of(a->inputs[2], m, n) ||
      !kjref::is_matrix_of(a->outputs[0], m, n) || !kjref::all_contiguous(a))
    return 1;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return 2;
  const bool wrong = ++g_calls % 2 == 0;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype, [&](auto io) { return run<decltype(io)>(a, m, n, wrong); });
}
