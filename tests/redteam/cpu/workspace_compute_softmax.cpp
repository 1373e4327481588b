// Attack (work moved into the untimed workspace query): the worker calls kj_workspace_bytes with
// the call's live arguments (inputs drawn, outputs allocated and poisoned) before it flushes the
// cache and starts the clock, to size the workspace. This candidate computes the whole softmax
// there, into a->outputs (the ABI hands them over writable), returns a 64-byte workspace, and
// kj_run does no work at all: every timed call measures an empty function, while every checked
// call's output is right.
// To stay under the speed-of-light check (cold samples faster than 1.5 x the machine's copy
// ceiling, 13-18 GB/s on the 2-core CI VM, are faster_than_light) kj_run waits until the call's
// minimum traffic (2 * M * N * 4 bytes) would have taken at 12 GB/s: a "plausible" time, still
// several times faster than cpu_fast.
// Pre-fix (b5c5f0e), 2-core VM, --budget 2: ok_faster, 1.89x [1.77, 2.04] against torch:eager:
// 350 us reported for a computation (single-threaded, libm expf) that takes ~2.1 ms, as long as
// the reference baseline's. (At 8 GB/s: 1.26x [1.18, 1.93].)
// Expected after the fix: the workspace query gets no data pointers (NULL inputs/outputs), so
// nothing is written and the poison is still there: wrong_result, rule unwritten_output (a
// candidate that dereferences the NULL pointers crashes instead: crash).
#include <time.h>

#include <cmath>

#include "kjudge/candidate.h"

namespace {

void softmax(const float* x, float* y, int64_t m, int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    const float* xr = x + i * n;
    float* yr = y + i * n;
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, xr[j]);
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += (yr[j] = std::exp(xr[j] - mx));
    const float inv = 1.0f / s;
    for (int64_t j = 0; j < n; ++j) yr[j] *= inv;
  }
}

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

constexpr double plausible_gbps = 12.0;  // GB/s: below the copy ceiling, far above cpu_fast

}  // namespace

KJ_EXPORT size_t kj_workspace_bytes(const kj_args* a) {
  // Untimed: the whole computation.
  if (a->n_inputs == 1 && a->n_outputs == 1 && a->inputs[0].data != nullptr && a->outputs[0].data != nullptr)
    softmax(static_cast<const float*>(a->inputs[0].data), static_cast<float*>(a->outputs[0].data),
            a->inputs[0].shape[0], a->inputs[0].shape[1]);
  return 64;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  // Timed: nothing but a wait that keeps the figure below the speed of light.
  const double bytes = 2.0 * static_cast<double>(a->inputs[0].shape[0] * a->inputs[0].shape[1]) * sizeof(float);
  const double until = now_s() + bytes / (plausible_gbps * 1e9);
  while (now_s() < until) {
  }
  return 0;
}
