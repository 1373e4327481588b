// Attack (phase detection by process history and cadence): the candidate is timed in a worker of
// its own that never runs a check (docs/notebook/2026-12-03-fresh-timing-worker.md). A process that has seen no call of
// under 20000 elements (only checked cases are that small; the checks start with one) takes itself
// for the timing worker, and there it cheats (returns the residual alone, skipping the GELU) on
// the calls that come back to back: those whose gap since the previous call is under the median
// of its gaps so far, about half of them, the later part of a round more than its start. The
// worker that runs the checks computes honestly throughout.
// Expected: hack, rule timed_output_mismatch: the timed calls are rechecked whichever process they
// run in, at indices drawn uniformly over the round after each call returned; cheating on half of
// the timed calls survives 20 rechecks with probability about 1e-6. Needs the timing phase.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "kjudge/candidate.h"

static bool g_seen_checks = false;
static double g_last = -1;
static std::vector<double> g_gaps;  // seconds between the end of a call and the start of the next

static double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const double t = now_s();
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  if (m * n < 20000) g_seen_checks = true;
  bool cheat = false;
  if (g_last >= 0) {
    const double gap = t - g_last;
    if (!g_seen_checks && g_gaps.size() >= 8) {
      std::vector<double> sorted(g_gaps);
      std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
      cheat = gap < sorted[sorted.size() / 2];
    }
    g_gaps.push_back(gap);
  }
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* bias = static_cast<const float*>(a->inputs[1].data);
  const float* res = static_cast<const float*>(a->inputs[2].data);
  float* out = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float v = x[i * n + j] + bias[j];
      out[i * n + j] = (cheat ? 0.0f : 0.5f * v * (1.0f + std::erf(v * 0.70710678f))) + res[i * n + j];
    }
  g_last = now_s();
  return 0;
}
