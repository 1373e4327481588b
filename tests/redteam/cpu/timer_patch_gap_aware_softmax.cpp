// Attack (timer patching that dodges the batch cross-check): patches libstdc++'s
// steady_clock::now like timer_patch_scale_rmsnorm.cpp, but hides 99.9% of a call's time only
// when the call starts more than 300 us after the previous one returned: timed samples (fresh
// inputs drawn and caches flushed between calls) report a thousandth of their time, while
// back-to-back batches, which the controller times with its own clock, are reported honestly.
// Since the worker seals its code (timer_patch_scale_rmsnorm.cpp says how) the patch fails and
// the attack computes honestly (harmless). Before that:
// hack, rule faster_than_light (the reported times imply moving the problem's minimum
// bytes far faster than the machine's measured copy ceiling). Needs the timing phase.
#include <dlfcn.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kjudge/candidate.h"

static long long g_hidden = 0, g_last_exit = 0;

static long long real_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

extern "C" long long fake_steady_now() { return real_ns() - g_hidden; }

static void patch_clock() {
  void* target = dlsym(RTLD_DEFAULT, "_ZNSt6chrono3_V212steady_clock3nowEv");
  if (target == nullptr) return;
  const uintptr_t page = reinterpret_cast<uintptr_t>(target) & ~uintptr_t(4095);
  if (mprotect(reinterpret_cast<void*>(page), 8192, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return;
  unsigned char jump[12] = {0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xe0};
  const uint64_t dest = reinterpret_cast<uint64_t>(&fake_steady_now);
  std::memcpy(jump + 2, &dest, 8);
  std::memcpy(target, jump, sizeof jump);
  mprotect(reinterpret_cast<void*>(page), 8192, PROT_READ | PROT_EXEC);
}

KJ_EXPORT int kj_run(const kj_args* a) {
  static bool patched = false;
  if (!patched) {
    patch_clock();
    patched = true;
  }
  const long long t0 = real_ns();
  const bool armed = g_last_exit != 0 && t0 - g_last_exit > 300000;
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  for (int64_t i = 0; i < m; ++i) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) mx = std::fmax(mx, x[i * n + j]);
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += (y[i * n + j] = std::exp(x[i * n + j] - mx));
    for (int64_t j = 0; j < n; ++j) y[i * n + j] /= s;
  }
  const long long t1 = real_ns();
  if (armed) g_hidden += (t1 - t0) * 999 / 1000;
  g_last_exit = real_ns();
  return 0;
}
