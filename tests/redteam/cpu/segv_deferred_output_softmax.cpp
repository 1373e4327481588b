// Attack (work deferred to the judge's own read of the outputs, through a fault handler): kj_run
// writes only the output's unaligned tail honestly, makes the page-aligned rest PROT_NONE and
// returns at once. It has installed its own SIGSEGV handler (sigaction, chaining to the worker's
// for every other address). When the worker copies the outputs into the arena after the clock has
// stopped (timed samples and checked calls alike), the copy faults on the first protected page;
// the handler computes the whole softmax, makes the pages writable again and returns, and the
// copy resumes on correct data. The deferred-work probe (a second copy 2 ms later) sees nothing
// change, so every check passes, and the timed call was a few mprotects.
// kj_run then waits until the call's minimum traffic would have taken at 12 GB/s, to stay below
// the speed-of-light check (faster_than_light above 1.5 x the copy ceiling, 13-18 GB/s here).
// Pre-fix (b5c5f0e), 2-core VM, --budget 2: ok_faster, 1.82x [1.79, 1.91] against torch:eager:
// 351 us reported for a single-threaded softmax of ~2.1 ms that ran in the fault handler.
// Expected after the fix: the handler cannot be installed (sigaction on SIGSEGV refused or
// reverted) and the worker restores the outputs' protection as the call returns: the protected
// part is never written: wrong_result, rule unwritten_output (or hack: sandbox_violation where
// the sigaction itself is forbidden; a crash where the worker reads a page still PROT_NONE).
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>

#include "kjudge/candidate.h"

namespace {

void softmax_rows(const float* x, float* y, int64_t r0, int64_t r1, int64_t n) {
  for (int64_t i = r0; i < r1; ++i) {
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

// The call whose output pages are protected (one at a time: the worker reads a call's outputs
// before the next call).
struct pending_call {
  volatile bool armed = false;
  const float* x = nullptr;
  float* y = nullptr;
  int64_t m = 0, n = 0;
  uintptr_t lo = 0, hi = 0;  // the protected byte range [lo, hi), page-aligned
};
pending_call g_pending;
struct sigaction g_previous {};

void on_segv(int sig, siginfo_t* si, void* ctx) {
  const auto addr = reinterpret_cast<uintptr_t>(si->si_addr);
  if (g_pending.armed && addr >= g_pending.lo && addr < g_pending.hi) {
    // The judge reads the output: compute it now, after its clock stopped.
    mprotect(reinterpret_cast<void*>(g_pending.lo), g_pending.hi - g_pending.lo, PROT_READ | PROT_WRITE);
    softmax_rows(g_pending.x, g_pending.y, 0, g_pending.m, g_pending.n);
    g_pending.armed = false;
    return;  // the faulting load runs again, on the computed data
  }
  // Anything else is the worker's business (input_modified, late writes): its handler.
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction != nullptr) g_previous.sa_sigaction(sig, si, ctx);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
  } else {
    signal(sig, SIG_DFL);
  }
}

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

constexpr double plausible_gbps = 12.0;  // GB/s: below the copy ceiling, far above cpu_fast

}  // namespace

KJ_EXPORT int kj_run(const kj_args* a) {
  static bool installed = false;
  if (!installed) {
    // The worker's handler is installed when it first makes an input read-only, before our first
    // call: ours goes on top and chains to it.
    struct sigaction sa {};
    sa.sa_sigaction = &on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    // Refused or not, the output is left protected below: the cheat is attempted either way.
    (void)sigaction(SIGSEGV, &sa, &g_previous);
    installed = true;
  }
  const double t0 = now_s();
  const int64_t m = a->inputs[0].shape[0], n = a->inputs[0].shape[1];
  const auto* x = static_cast<const float*>(a->inputs[0].data);
  auto* y = static_cast<float*>(a->outputs[0].data);
  const long page = sysconf(_SC_PAGESIZE);
  const auto begin = reinterpret_cast<uintptr_t>(y), end = begin + static_cast<uintptr_t>(m * n) * sizeof(float);
  const uintptr_t lo = (begin + page - 1) / page * page, hi = end / page * page;
  g_pending.armed = false;
  if (hi <= lo + static_cast<uintptr_t>(page)) {
    softmax_rows(x, y, 0, m, n);  // too small to bother: honest
  } else {
    // Rows that touch the unprotected head or tail are written now; the rest waits for the read.
    const int64_t head_row_end = static_cast<int64_t>((lo - begin) / sizeof(float) + n - 1) / n;
    const int64_t tail_row_begin = static_cast<int64_t>((hi - begin) / sizeof(float)) / n;
    softmax_rows(x, y, 0, head_row_end, n);
    softmax_rows(x, y, tail_row_begin, m, n);
    g_pending.x = x;
    g_pending.y = y;
    g_pending.m = m;
    g_pending.n = n;
    g_pending.lo = lo;
    g_pending.hi = hi;
    g_pending.armed = true;
    if (mprotect(reinterpret_cast<void*>(lo), hi - lo, PROT_NONE) != 0) {
      g_pending.armed = false;
      softmax_rows(x, y, 0, m, n);
    }
  }
  const double until = t0 + 2.0 * static_cast<double>(m * n) * sizeof(float) / (plausible_gbps * 1e9);
  while (now_s() < until) {
  }
  return 0;
}
