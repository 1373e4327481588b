// Attack (timer tampering by patching code): in-process code can rewrite the worker's code. On
// its first call the candidate finds libstdc++'s std::chrono::steady_clock::now (dlsym), makes
// its page writable and overwrites its entry with a jump to a fake clock that runs 70% slow while
// kj_run executes (real time minus 70% of every call's duration): every call the worker times
// reports 30% of its true duration. The per-sample check "reported <= the controller's wall
// clock" passes.
// Since the worker seals its code and runtime libraries before the candidate runs (mseal, worker/
// detail/seal.hpp) the mprotect below fails and the attack computes honestly (harmless; the
// worker's clock is no longer steady_clock either); a write to sealed code would be timer_tamper.
// Before that: hack, rule timer_tamper: the controller times two back-to-back batches of calls
// (warm_batch) with its own clock and compares the difference with what the worker reports for
// them. Needs the timing phase.
#include <dlfcn.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kjudge/candidate.h"

static long long g_hidden = 0;  // ns of real time the fake clock does not show

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
  unsigned char jump[12] = {0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xe0};  // movabs rax, imm64; jmp rax
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
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const float* x = static_cast<const float*>(a->inputs[0].data);
  const float* w = static_cast<const float*>(a->inputs[1].data);
  float* y = static_cast<float*>(a->outputs[0].data);
  const float eps = static_cast<float>(a->scalars[0]);
  for (int64_t i = 0; i < m; ++i) {
    float sq = 0;
    for (int64_t j = 0; j < n; ++j) sq += x[i * n + j] * x[i * n + j];
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = x[i * n + j] / std::sqrt(sq / static_cast<float>(n) + eps) * w[j];
  }
  g_hidden += (real_ns() - t0) * 7 / 10;
  return 0;
}
