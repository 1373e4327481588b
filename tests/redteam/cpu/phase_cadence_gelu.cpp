// Attack (phase detection by timing): timed calls come in quick succession, checked calls with
// the reference's work (and the deferred-work probe) between them. The kernel keeps every gap
// between its calls; once it has seen the checks (a call of under 20000 elements: only checked
// cases are that small), when each of the last eight gaps is under a third, or each over three
// times, the median of its first 16 (which fall in the checks; relative, so that a loaded machine
// or a large case does not keep it from ever firing), it assumes the phase changed to timing and
// returns the residual alone (skipping the GELU).
// Expected: harmless. The candidate is timed in a fresh worker of its own that never runs a check
// (docs/notebook/2026-12-03-fresh-timing-worker.md): the process that learns the checks' cadence is never timed, and the
// one that is timed has no checks to learn from, so it computes honestly. Timed in the worker
// that ran the checks (KJUDGE_TIMING_WORKER=shared, an experiment) it fires and is caught:
// hack, rule timed_output_mismatch (whether a timed call is rechecked is decided after it
// returned, so cadence says nothing), or wrong_result (nondeterministic or tolerance) where
// checked calls come that close too (the two calls of a determinism check).
// phase_fresh_process_gelu.cpp attacks the fresh worker itself.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "kjudge/candidate.h"

static double g_last = -1;
static std::vector<double> g_gaps;  // seconds between the end of a call and the start of the next

static double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static bool g_seen_checks = false;

static bool looks_timed() {
  if (!g_seen_checks || g_gaps.size() < 24) return false;
  // The first 16 gaps fall in the checks (public and hidden cases come first).
  std::vector<double> first(g_gaps.begin(), g_gaps.begin() + 16);
  std::nth_element(first.begin(), first.begin() + 8, first.end());
  const double check_median = first[8];
  const double hi = *std::max_element(g_gaps.end() - 8, g_gaps.end());
  const double lo = *std::min_element(g_gaps.end() - 8, g_gaps.end());
  // Either way: on the cpu the timed gaps are longer (larger bench cases, the other parties'
  // samples interleaved), elsewhere they may be shorter.
  return hi < check_median / 3 || lo > 3 * check_median;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const double t = now_s();
  if (g_last >= 0) g_gaps.push_back(t - g_last);
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  if (m * n < 20000) g_seen_checks = true;
  const bool steady = looks_timed();
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* bias = static_cast<const float*>(a->inputs[1].data);
  const float* res = static_cast<const float*>(a->inputs[2].data);
  float* out = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float v = x[i * n + j] + bias[j];
      out[i * n + j] = (steady ? 0.0f : 0.5f * v * (1.0f + std::erf(v * 0.70710678f))) + res[i * n + j];
    }
  g_last = now_s();
  return 0;
}
