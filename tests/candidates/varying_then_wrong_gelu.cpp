// Test candidate (gelu_bias_residual). Stands for a nondeterministic kernel (atomics, whose
// summation order moves from call to call) whose variation crosses the tolerance on some calls.
// It alternates call by call between two orders of the same sums, so two calls on the same inputs
// differ bitwise (by an ulp of the GELU term: ~1e-3 on a wide-range case, whose terms reach 1e4) and
// each is within tolerance, and from its process's 61st call on it adds 1.0 to
// the first output element. Every checked call passes (a process's first calls); the timing
// worker's later calls fail their recheck; the same call run again untimed in a fresh worker passes
// twice, with bitwise-different outputs. Expected verdict: wrong_result, rule nondeterministic (the
// same inputs gave a failing and a passing output, and the kernel varies from call to call, so the
// failure is not shown to be a change under timing). phase_call_count_softmax.cpp, deterministic,
// stays hack (timed_output_mismatch).
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

static long g_calls = 0;

template <class IO>
static int run(const kj_args* a, int64_t m, int64_t n, bool other_order, bool wrong) {
  using T = typename IO::storage;
  const T* x = (const T*)a->inputs[0].data;
  const T* bias = (const T*)a->inputs[1].data;
  const T* res = (const T*)a->inputs[2].data;
  T* out = (T*)a->outputs[0].data;
  const float inv_sqrt2 = 0.707106781186547524f;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float v = IO::load(bias[j]) + IO::load(x[i * n + j]);
      const float r = IO::load(res[i * n + j]);
      const float half = v * 0.5f, e = std::erf(v * inv_sqrt2);
      // r + (half + half * e) rounds differently from r + half * (1 + e) on some elements, by an
      // ulp of the GELU term; both are backward stable. ((r + half) + half * e is not: where
      // half * e cancels half, r is absorbed into half and lost, an error the element-wise
      // envelope of gelu_bias_residual rejects.)
      out[i * n + j] = IO::store(other_order ? r + (half + half * e) : r + half * (1.0f + e));
    }
  if (wrong && m * n > 0) out[0] = IO::store(IO::load(out[0]) + 1.0f);
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t m, n;
  if (a->n_inputs != 3 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_vector_of(a->inputs[1], n) || !kjref::is_matrix_of(a->inputs[2], m, n) ||
      !kjref::is_matrix_of(a->outputs[0], m, n) || !kjref::all_contiguous(a))
    return 1;
  if (!kjref::same_dtype(a, a->inputs[0].dtype)) return 2;
  ++g_calls;
  const bool other_order = g_calls % 2 == 0, wrong = g_calls > 60;
  return kjref::dispatch_f32_bf16(a->inputs[0].dtype,
                                  [&](auto io) { return run<decltype(io)>(a, m, n, other_order, wrong); });
}
