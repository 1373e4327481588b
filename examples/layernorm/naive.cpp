// Honest, naive layernorm: for each row, a float sum for the mean, a second pass for the biased
// variance, then (x - mean) / sqrt(var + eps) * weight + bias with a division per element.
// Scalar loops, nothing fused. Expected verdict: correct (ok_not_faster against the reference).
// Its mean is sum / n where the reference has sum * (1/n): for N not a power of two the two
// floats differ by an ulp of 1e4 in some rows of offset data, which a weight of ~1e4 turns into
// an output error of ~10. Both are honest f32; an oracle whose allowance is the reference's own
// error in the same row rejects this file on such rows (a false positive of that rule).
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n, float eps) {
  using T = typename IO::storage;
  const T* x = (const T*)a->inputs[0].data;
  const T* w = (const T*)a->inputs[1].data;
  const T* b = (const T*)a->inputs[2].data;
  T* y = (T*)a->outputs[0].data;
  for (int64_t i = 0; i < m; ++i) {
    float mean = 0.0f;
    for (int64_t j = 0; j < n; ++j) mean += IO::load(x[i * n + j]);
    mean /= (float)n;
    float var = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      float d = IO::load(x[i * n + j]) - mean;
      var += d * d;
    }
    var /= (float)n;
    float denom = std::sqrt(var + eps);
    for (int64_t j = 0; j < n; ++j)
      y[i * n + j] = IO::store((IO::load(x[i * n + j]) - mean) / denom * IO::load(w[j]) +
                               IO::load(b[j]));
  }
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_vector_of(a->inputs[1], n) || !kjref::is_vector_of(a->inputs[2], n) ||
      !kjref::is_matrix_of(a->outputs[0], m, n) || !kjref::all_contiguous(a))
    return 1;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return 2;
  const float eps = (float)kjref::scalar_or(a, 0, 1e-5);
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run<decltype(io)>(a, m, n, eps); });
}

KJ_EXPORT const char* kj_info(void) { return "family=naive;notes=scalar two-pass"; }
