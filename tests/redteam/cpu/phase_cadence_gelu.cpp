// Attack (phase detection by timing): timed calls come in quick succession, checked calls with
// the reference's work (and the deferred-work probe) between them. When each of the last eight
// gaps between calls is under 15 ms or three times its own last call's duration (whichever is
// longer: with large cases the other parties' interleaved samples make even timed gaps long),
// the kernel assumes it is being timed and returns the residual alone (skipping the GELU).
// Expected: hack, rule timed_output_mismatch (whether a timed call is rechecked is decided after
// it returned, so cadence says nothing); on a machine fast enough for checked calls to come that
// close too, wrong_result (nondeterministic or tolerance) in the checks. Either way no cadence
// lets it pass the checks and cheat the timed calls. Needs the timing phase.
#include <chrono>
#include <cmath>

#include "kjudge/candidate.h"

static double g_last = -1, g_gaps[8] = {1, 1, 1, 1, 1, 1, 1, 1};
static int g_k = 0;
static double g_dur = 0;  // the last call's own duration, seconds

static double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

KJ_EXPORT int kj_run(const kj_args* a) {
  const double t = now_s();
  if (g_last >= 0) g_gaps[g_k++ % 8] = t - g_last;
  double hi = 0;
  for (double g : g_gaps) hi = g > hi ? g : hi;
  const bool steady = hi < (3 * g_dur > 0.015 ? 3 * g_dur : 0.015);
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
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
  g_dur = g_last - t;
  return 0;
}
