// Test candidate (gelu_bias_residual). Honest GELU, except in a process whose first call had at
// least 300000 elements: there it adds 1.0 to the first output element of every call, timed or
// not. On the cpu device the correctness worker's first call is the public M=64 N=256 case, so
// every checked call passes; the timing worker's first call is a bench case (M=512 N=1024 or
// M=333 N=1000), so every timed call is wrong, and so is the same call run again in a fresh
// process. Its timed failure is not a change under timing but its answer on those calls.
// Expected verdict: wrong_result, rule tolerance (a rechecked timed call fails, and so does its
// untimed rerun in a fresh worker); phase_call_count_softmax.cpp, which is honest on a process's
// first 60 calls, stays hack (timed_output_mismatch).
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

static int g_first_numel = -1;  // elements of this process's first call's output

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n) {
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
  if (g_first_numel >= 300000 && m * n > 0) out[0] = IO::store(IO::load(out[0]) + 1.0f);
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_vector_of(a->inputs[1], n) || !kjref::is_matrix_of(a->inputs[2], m, n) ||
      !kjref::is_matrix_of(a->outputs[0], m, n) || !kjref::all_contiguous(a))
    return 1;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return 2;
  if (g_first_numel < 0) g_first_numel = static_cast<int>(m * n);
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype, [&](auto io) { return run<decltype(io)>(a, m, n); });
}
