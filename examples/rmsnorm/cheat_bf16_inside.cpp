// CHEAT: rmsnorm that computes in bf16 even when the problem's dtype is f32: x and weight are
// rounded to bf16 on load, every product and the running sum are rounded to bf16, and only the
// final result is widened back to f32. Half the memory traffic and cheaper arithmetic on real
// bf16 hardware, but a relative error of ~1e-2 (bf16 keeps 8 significant bits) against f32's
// rtol 1e-5, on any data. Expected verdict: wrong_result. The bf16 variant fails too once rows
// are long (N ~ 1000): a bf16 running sum stops growing when the terms fall below half its ulp.
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

static inline float bf(float v) { return kjref::bf16_to_f32(kjref::f32_to_bf16(v)); }

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n, float eps) {
  using T = typename IO::storage;
  const T* x = (const T*)a->inputs[0].data;
  const T* w = (const T*)a->inputs[1].data;
  T* y = (T*)a->outputs[0].data;
  for (int64_t i = 0; i < m; ++i) {
    float ss = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      const float v = bf(IO::load(x[i * n + j]));
      ss = bf(ss + bf(v * v));
    }
    const float r = bf(1.0f / std::sqrt(bf(ss / (float)n) + eps));
    for (int64_t j = 0; j < n; ++j)
      y[i * n + j] = IO::store(bf(bf(bf(IO::load(x[i * n + j])) * r) * bf(IO::load(w[j]))));
  }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 2 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_vector_of(a->inputs[1], n) || !kjref::is_matrix_of(a->outputs[0], m, n) ||
      !kjref::all_contiguous(a))
    return 1;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return 2;
  const float eps = (float)kjref::scalar_or(a, 0, 1e-6);
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run<decltype(io)>(a, m, n, eps); });
}

KJ_EXPORT const char* kj_info(void) { return "family=cheat;notes=bf16 arithmetic for f32 data"; }
