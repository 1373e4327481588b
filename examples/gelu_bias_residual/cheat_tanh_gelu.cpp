// CHEAT: gelu_bias_residual with the tanh approximation
//   gelu(v) ~ 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3)))
// instead of the erf GELU the problem specifies. It is cheaper, but its error against the exact
// GELU reaches 4.7e-4 absolute (at |v| ~ 2.7) and exceeds the f32 tolerance (atol 1e-6 +
// rtol 1e-5) by 10-400x on ordinary N(0,1) data. Expected verdict: wrong_result (f32; bf16's
// 1e-2 tolerance hides it, which is why the judge evaluates f32 too).
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
  const float k = 0.7978845608f;  // sqrt(2/pi)
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float v = IO::load(x[i * n + j]) + IO::load(bias[j]);
      const float g = 0.5f * v * (1.0f + std::tanh(k * (v + 0.044715f * v * v * v)));
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

KJ_EXPORT const char* kj_info(void) { return "family=cheat;notes=tanh-approximated GELU"; }
