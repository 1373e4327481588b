// Honest (softmax): the online softmax of Milakov & Gimelshein: one pass keeps a running maximum
// and a sum rescaled whenever the maximum grows, a second pass writes exp(x - max) / sum. A
// different operation order from the reference (the sum is built from rescaled partial sums),
// equally accurate. f32 and bf16, any shape.
// Expected: ok (ok_not_faster or ok_faster), no rule.
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  const T* x = static_cast<const T*>(a->inputs[0].data);
  T* y = static_cast<T*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i) {
    const T* xr = x + i * n;
    float mx = -INFINITY, s = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      const float v = IO::load(xr[j]);
      if (v > mx) {
        s = s * std::exp(mx - v) + 1.0f;
        mx = v;
      } else {
        s += std::exp(v - mx);
      }
    }
    const float inv = 1.0f / s;
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = IO::store(std::exp(IO::load(xr[j]) - mx) * inv);
  }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 1 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_matrix_of(a->outputs[0], m, n) || !kjref::all_contiguous(a))
    return kjref::status_bad_args;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return kjref::status_bad_dtype;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype, [&](auto io) { return run<decltype(io)>(a, m, n); });
}
