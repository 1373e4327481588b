// Attack (background load between its own calls): the kernel is an honest softmax as fast as the
// cpu_fast baseline (the same 3-pass vectorised algorithm, OpenMP over rows). On its first call it
// starts 4 threads that stream memory in bursts (below) whenever kj_run is not executing, and
// sleep (futex wait) while it is. The judge times the parties one after another in the same
// rounds, so every sample of the reference, cpu_fast and torch:eager baselines competes with them
// for the cores and DRAM, while the candidate's own samples run on a quiet machine. Only its own
// threads are used: no signal, priority or scheduling call on another process (which the sandbox
// forbids). The preempted baselines' samples are not set aside as "disturbed" (4 of ~380 were).
// Pre-fix (b5c5f0e), 2-core VM, --budget 3: ok_faster, 1.98x [1.74, 2.19] and 2.17x [1.72, 2.36] in
// two runs; every baseline ~1.7-2x slower than in the control run (the same kernel without the
// threads: ok_not_faster, 0.96x [0.83, 1.04]).
// Expected after the fix: hack, rule background_work (CPU time of the candidate's processes
// outside its calls, while other parties are timed). Needs the timing phase.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "kjudge/candidate.h"
#include "kjudge/reference_util.h"

namespace {

std::atomic<int> g_in_call{0};

// One of 4 threads: while no call runs, 100 us of memory streaming (memcpy of 64 KiB chunks within
// two 64 MiB buffers, far beyond the LLC), then 200 us asleep. A thread that mostly sleeps is
// favoured by the scheduler when it wakes, so it preempts whatever runs (a baseline's sample)
// instead of waiting behind it; a thread that spins without sleeping never got a core while a
// baseline's threads ran (tried: the baselines were not slowed at all).
void background() {
  constexpr size_t buffer_bytes = size_t{64} << 20, chunk = size_t{64} << 10;
  std::vector<char> a(buffer_bytes, 1), b(buffer_bytes, 2);
  size_t off = 0;
  for (;;) {
    g_in_call.wait(1);  // sleeps while a call runs
    const auto t0 = std::chrono::steady_clock::now();
    while (g_in_call.load() == 0 && std::chrono::steady_clock::now() - t0 < std::chrono::microseconds(100)) {
      std::memcpy(b.data() + off, a.data() + off, chunk);
      off = (off + chunk) % buffer_bytes;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

constexpr int lanes = 16;

void softmax_row(const float* xr, float* yr, int64_t n) {
  const int64_t n_body = n - n % lanes;
  float mx[lanes];
  for (int l = 0; l < lanes; ++l) mx[l] = -INFINITY;
  for (int64_t j = 0; j < n_body; j += lanes)
    for (int l = 0; l < lanes; ++l) mx[l] = xr[j + l] > mx[l] ? xr[j + l] : mx[l];
  for (int64_t j = n_body; j < n; ++j) mx[j - n_body] = xr[j] > mx[j - n_body] ? xr[j] : mx[j - n_body];
  float m = mx[0];
  for (int l = 1; l < lanes; ++l) m = mx[l] > m ? mx[l] : m;
  float acc[lanes] = {};
  for (int64_t j = 0; j < n_body; j += lanes)
    for (int l = 0; l < lanes; ++l) acc[l] += (yr[j + l] = kjref::exp_f32(xr[j + l] - m));
  for (int64_t j = n_body; j < n; ++j) acc[j - n_body] += (yr[j] = kjref::exp_f32(xr[j] - m));
  for (int w = lanes / 2; w > 0; w /= 2)
    for (int l = 0; l < w; ++l) acc[l] += acc[l + w];
  const float inv = 1.0f / acc[0];
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) yr[j] *= inv;
}

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  g_in_call.store(1);
  static bool started = [] {
    for (int t = 0; t < 4; ++t) std::thread(background).detach();
    return true;
  }();
  (void)started;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const auto* x = static_cast<const float*>(a->inputs[0].data);
  auto* y = static_cast<float*>(a->outputs[0].data);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; ++i) softmax_row(x + i * n, y + i * n, n);
  g_in_call.store(0);
  g_in_call.notify_all();
  return 0;
}
