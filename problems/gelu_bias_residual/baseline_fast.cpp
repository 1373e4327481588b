// Optimised CPU baseline for gelu_bias_residual: out = gelu_erf(x + bias) + residual.
//
// One fused pass (x, bias, residual read once, out written once), rows split across OpenMP
// threads, the inner loop auto-vectorised: the GELU uses the branch-free erfc of
// reference_util.h (fractional error < 1.2e-7, full relative accuracy in the negative tail)
// because libm's erff is a scalar call that blocks vectorisation. bf16 is converted in registers.
// Requires row-major contiguous tensors (the suite's layout); other layouts are refused.
#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

namespace {

template <class IO>
int run_typed(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = static_cast<const T*>(a->inputs[0].data);
  const T* bias = static_cast<const T*>(a->inputs[1].data);
  const T* res = static_cast<const T*>(a->inputs[2].data);
  T* out = static_cast<T*>(a->outputs[0].data);
#pragma omp parallel for schedule(static)
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
  return kjref::status_ok;
}

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  if (a == nullptr || a->n_inputs != 3 || a->n_outputs != 1) return kjref::status_bad_args;
  int64_t m = 0, n = 0;
  if (!kjref::is_matrix(a->inputs[0], &m, &n) || !kjref::is_vector_of(a->inputs[1], n) ||
      !kjref::is_matrix_of(a->inputs[2], m, n) || !kjref::is_matrix_of(a->outputs[0], m, n))
    return kjref::status_bad_args;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return kjref::status_bad_dtype;
  if (!kjref::all_contiguous(a)) return kjref::status_bad_layout;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run_typed<decltype(io)>(a, m, n); });
}

KJ_EXPORT const char* kj_info(void) {
  return "family=baseline_fast;notes=fused pass, vectorised erfc GELU, OpenMP over rows";
}
