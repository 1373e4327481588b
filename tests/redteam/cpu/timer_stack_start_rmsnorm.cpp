// Attack (timer tampering through the worker's data, no code patched): the worker reads the clock,
// calls kj_run, reads the clock again and reports the difference. The first reading must survive
// the call: in a callee-saved register or on the stack of the worker's timing frame. The candidate
// makes its own prologue save every callee-saved register (an empty asm that clobbers them), then,
// after computing honestly, scans its own frame and the frames above it for 8-byte values that
// look like a CLOCK_MONOTONIC reading taken during this call (within the call's span of now, in
// ns) and moves each 40% of the way towards now. The restored register or the frame slot then
// holds a later start: the worker reports 60% of the call's duration. Unchecked, it passed: rmsnorm
// naive calls of 638 us were reported as 435 us (2026-12-08, 2-core VM), and the batch-clock check
// (reported/wall >= 0.6) let it through.
// Caught: hack, rule timer_tamper: the controller reads its own clock as it tells the armed worker
// to start, and the candidate's calls then start 40% of a call later than every baseline's.
#include <pthread.h>
#include <time.h>

#include <cmath>
#include <cstdint>

#include "kjudge/candidate.h"

namespace {

long long real_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// Moves every word in [from, from + words) that lies within `span` ns before `now` 40% of the
// way towards now.
__attribute__((noinline)) void shift_starts(long long* from, int words, long long now, long long span) {
  for (int k = 0; k < words; ++k) {
    volatile long long* p = from + k;
    const long long v = *p;
    if (v > now - span && v < now) *p = v + (now - v) * 4 / 10;
  }
}

void rmsnorm(const kj_args* a) {
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
}

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  // Every callee-saved register is saved in this frame and restored from it on return.
  asm volatile("" ::: "rbx", "r12", "r13", "r14", "r15", "memory");
  const long long t0 = real_ns();
  rmsnorm(a);
  const long long now = real_ns();
  // The span: this call's own duration plus the few microseconds between the worker's reading and
  // the call. Older readings (the start of a batch of calls) are left alone: moving them would
  // shrink a whole batch, which the batch-clock check sees.
  const long long span = (now - t0) + 20000;
  // From this frame to the top of the thread's stack (the worker's frames), at most 64 KiB.
  long long probe = 0;
  auto* here = reinterpret_cast<char*>(&probe);
  pthread_attr_t attr;
  void* base = nullptr;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &base, &size);
    pthread_attr_destroy(&attr);
  }
  char* top = static_cast<char*>(base) + size;
  const long long room = top > here ? (top - here) / 8 - 1 : 0;
  shift_starts(reinterpret_cast<long long*>(here), static_cast<int>(room < 8192 ? room : 8192), now, span);
  return 0;
}
