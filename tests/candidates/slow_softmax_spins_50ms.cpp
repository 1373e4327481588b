// Test candidate (softmax, f32). Honest results, slow on purpose: each call spins until 50 ms of
// wall time have passed, so that in a small model its op is most of a step whatever the machine's
// load (tests/integration/test_e2e.cpp: its share of a step must come out alike in the model eager
// and compiled). Expected verdict: correct, ok_not_faster; bf16 is refused (kj_run returns 2).
#include <chrono>
#include <cmath>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  int64_t m, n;
  if (a->n_inputs != 1 || a->n_outputs != 1 || !kjref::is_matrix(a->inputs[0], &m, &n) ||
      !kjref::is_matrix_of(a->outputs[0], m, n) || !kjref::all_contiguous(a))
    return 1;
  if (a->inputs[0].dtype != KJ_F32 || a->outputs[0].dtype != KJ_F32) return 2;
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m * n; i += n) {
    float mx = x[i], sum = 0;
    for (int64_t j = i; j < i + n; ++j) mx = std::fmax(mx, x[j]);
    for (int64_t j = i; j < i + n; ++j) sum += y[j] = std::exp(x[j] - mx);
    for (int64_t j = i; j < i + n; ++j) y[j] /= sum;
  }
  while (std::chrono::steady_clock::now() < until) {
  }
  return 0;
}
