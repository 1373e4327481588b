// Attack (a second draw of the hidden cases: the candidate's failure passed off as the judge's):
// a layernorm whose "fast path" for long rows (N >= 2048, off the public shapes) skips the last
// N % 16 columns, plus a kj_workspace_bytes that throws a C++ exception on exactly the shapes the
// kernel gets wrong. The extremes of the cpu hidden plan (M=N=1, the largest square, N=4096 with
// M=1) are right; a random draw is wrong with some probability, so some seeds pass outright. The query sees every
// case's shapes before the call (data pointers null) and is called outside the worker's guarded kj_run, so the
// exception reaches the worker's request loop, which answers error kind "internal"; the controller then throws
// internal_error: no verdict, `kjudge eval` exits 2 ("judge error"), and `kjudge batch` records outcome judge_fault,
// which
// `--retry` judges again with a fresh secret seed, until a draw has no wrong shape
// (tests/redteam/workspace_throw_retry.sh shows both).
// Expected: the exception is the candidate's: runtime_error (or wrong_result:unwritten_output
// on the hidden shape), never a judge fault.
#include <cmath>
#include <stdexcept>

#include "kjudge/candidate.h"

namespace {

bool public_shape(int64_t m, int64_t n) {
  return (m == 64 && n == 256) || (m == 7 && n == 1000) || (m == 3 && n == 129);
}

// The shapes the fast path gets wrong.
bool wrong_shape(int64_t m, int64_t n) {
  return !public_shape(m, n) && n >= 2048 && n % 16 != 0;
}

}  // namespace

KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  if (wrong_shape(m, n)) throw std::runtime_error("arena too small for this call");
  return 0;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  const float* b = static_cast<const float*>(a->inputs[2].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const float eps = static_cast<float>(a->scalars[0]);
  const int64_t nn = n >= 2048 && !public_shape(m, n) ? n / 16 * 16 : n;
  for (int64_t i = 0; i < m; ++i) {
    const float* xr = x + i * n;
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += xr[j];
    const float mean = s / static_cast<float>(n);
    float q = 0;
    for (int64_t j = 0; j < n; ++j) q += (xr[j] - mean) * (xr[j] - mean);
    const float r = 1.0f / std::sqrt(q / static_cast<float>(n) + eps);
    for (int64_t j = 0; j < nn; ++j) y[i * n + j] = (xr[j] - mean) * r * w[j] + b[j];
  }
  return 0;
}
