// Honest, naive gelu_bias_residual: out = gelu_erf(x + bias) + residual, one element at a time
// through a small helper, libm erff, no vectorisation. Expected verdict: correct
// (ok_not_faster against the reference).
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

static float gelu(float v) { return v * 0.5f * (1.0f + std::erf(v / std::sqrt(2.0f))); }

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = (const T*)a->inputs[0].data;
  const T* bias = (const T*)a->inputs[1].data;
  const T* res = (const T*)a->inputs[2].data;
  T* out = (T*)a->outputs[0].data;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float g = gelu(IO::load(x[i * n + j]) + IO::load(bias[j]));
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

KJ_EXPORT const char* kj_info(void) { return "family=naive;notes=scalar loop, libm erff"; }
