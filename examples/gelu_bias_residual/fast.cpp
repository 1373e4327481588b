// Honest fast gelu_bias_residual for one core: a single fused, auto-vectorised pass
// (x, bias, residual read once, out written once). The erf-GELU is evaluated as v * Phi(v) with
// Phi from the branch-free erfc of reference_util.h (fractional error < 1.2e-7, accurate in the
// negative tail), because libm's erff is a scalar call that stops vectorisation.
// Expected verdict: correct; faster than the reference, which is bound by scalar erff calls.
#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* __restrict x = (const T*)a->inputs[0].data;
  const T* __restrict bias = (const T*)a->inputs[1].data;
  const T* __restrict res = (const T*)a->inputs[2].data;
  T* __restrict out = (T*)a->outputs[0].data;
  for (int64_t i = 0; i < m; ++i) {
    const T* xr = x + i * n;
    const T* rr = res + i * n;
    T* orow = out + i * n;
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) {
      const float v = IO::load(xr[j]) + IO::load(bias[j]);
      orow[j] = IO::store(v * kjref::normal_cdf_f32(v) + IO::load(rr[j]));
    }
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

KJ_EXPORT const char* kj_info(void) {
  return "family=fused_vectorised;notes=one pass, branch-free erfc GELU, single thread";
}
