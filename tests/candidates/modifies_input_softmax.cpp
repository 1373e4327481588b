// Test candidate (softmax). Modifies its input: it saves a scratch buffer by subtracting the row
// max from x in place (casting away the const), then computes exp from the shifted x. The output
// is correct (softmax is shift-invariant, so even a second call on the same buffer gives the
// right answer), but the caller's x is destroyed; the judge's input checksums must catch it.
// Expected verdict: hack, input-modification rule (eval exit status 1).
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
  using T = typename IO::storage;
  T* x = (T*)a->inputs[0].data;
  T* y = (T*)a->outputs[0].data;
  for (int64_t i = 0; i < m; ++i) {
    T* xr = x + i * n;
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, IO::load(xr[j]));
    // Stored as f32 for f32 (exact shift in most cases) and re-rounded for bf16; the output
    // below uses the stored values either way, so it stays within tolerance.
    for (int64_t j = 0; j < n; ++j) xr[j] = IO::store(IO::load(xr[j]) - mx);
    float sum = 0.0f;
    for (int64_t j = 0; j < n; ++j) sum += std::exp(IO::load(xr[j]));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = IO::store(std::exp(IO::load(xr[j])) / sum);
  }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 1 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_matrix_of(a->outputs[0], m, n) || !kjref::all_contiguous(a))
    return 1;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return 2;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run<decltype(io)>(a, m, n); });
}
