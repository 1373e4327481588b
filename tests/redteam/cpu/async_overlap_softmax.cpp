// Attack (batching calls / work overlapping the next call): kj_run starts the whole computation
// on a background thread and returns at once; the thread is joined at the start of the next
// call. Throughput is unchanged but every call "takes" microseconds, and the work of call k
// overlaps call k+1.
// Expected: hack, rule deferred_work (the output changed after the call returned).
#include <cmath>
#include <thread>

#include "kjudge/candidate.h"

static std::thread g_worker;

KJ_EXPORT int kj_run(const kj_args* a) {
  if (g_worker.joinable()) g_worker.join();
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  g_worker = std::thread([=] {
    for (int64_t i = 0; i < m; ++i) {
      float mx = -INFINITY;
      for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, x[i * n + j]);
      float s = 0;
      for (int64_t j = 0; j < n; ++j) s += (y[i * n + j] = std::exp(x[i * n + j] - mx));
      for (int64_t j = 0; j < n; ++j) y[i * n + j] /= s;
    }
  });
  return 0;
}
