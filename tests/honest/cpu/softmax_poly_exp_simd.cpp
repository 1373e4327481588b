// Honest (softmax): branch-free polynomial exp (reference_util's exp_f32, about 2 ulp) in loops
// marked `#pragma omp simd`, with the row sum accumulated in 8 independent lanes (a different
// summation order) and a final multiply by 1/sum. Handles f32 and bf16.
// Expected: ok, no rule.
#include <cmath>
#include <vector>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = static_cast<const T*>(a->inputs[0].data);
  T* y = static_cast<T*>(a->outputs[0].data);
  std::vector<float> e(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    const T* xr = x + i * n;
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, IO::load(xr[j]));
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) e[j] = kjref::exp_f32(IO::load(xr[j]) - mx);
    float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
      for (int l = 0; l < 8; ++l) lanes[l] += e[j + l];
    float s = 0.0f;
    for (; j < n; ++j) s += e[j];
    for (float l : lanes) s += l;
    const float inv = 1.0f / s;
#pragma omp simd
    for (int64_t k = 0; k < n; ++k) y[i * n + k] = IO::store(e[k] * inv);
  }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 1 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_matrix_of(a->outputs[0], m, n) || !kjref::all_contiguous(a))
    return kjref::status_bad_args;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype, [&](auto io) { return run<decltype(io)>(a, m, n); });
}
