// Attack (deferred work only where it pays): computes synchronously while a shape is new
// (checks), but from the 5th call of a shape on (timing) copies the inputs it needs, starts the
// work on a background thread and returns at once. The thread usually finishes within the
// controller's round trip, so a recheck that copied the outputs only when asked would see a
// correct result, and the reported time would be that of a memcpy.
// Expected: hack, rule deferred_work (every timed call's outputs are copied as it returns; a
// rechecked one then shows the change). Needs the timing phase.
#include <cmath>
#include <map>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "kjudge/candidate.h"

static std::map<std::pair<int64_t, int64_t>, int> g_seen;
static std::thread g_worker;

static void layernorm(const float* x, const float* w, const float* b, float* y, int64_t m, int64_t n, float eps) {
  for (int64_t i = 0; i < m; ++i) {
    const float* xr = x + i * n;
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += xr[j];
    const float mean = s / static_cast<float>(n);
    float q = 0;
    for (int64_t j = 0; j < n; ++j) q += (xr[j] - mean) * (xr[j] - mean);
    const float r = 1.0f / std::sqrt(q / static_cast<float>(n) + eps);
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = (xr[j] - mean) * r * w[j] + b[j];
  }
}

KJ_EXPORT int kj_run(const kj_args* a) {
  if (g_worker.joinable()) g_worker.join();
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  const float* b = static_cast<const float*>(a->inputs[2].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const float eps = static_cast<float>(a->scalars[0]);
  if (++g_seen[{m, n}] <= 4) {
    layernorm(x, w, b, y, m, n, eps);
    return 0;
  }
  // Inputs may be unmapped once the call is over: keep copies for the thread.
  auto xs = std::make_shared<std::vector<float>>(x, x + m * n);
  auto ws = std::make_shared<std::vector<float>>(w, w + n);
  auto bs = std::make_shared<std::vector<float>>(b, b + n);
  g_worker = std::thread([=] { layernorm(xs->data(), ws->data(), bs->data(), y, m, n, eps); });
  return 0;
}
