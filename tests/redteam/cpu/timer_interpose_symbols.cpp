// Attack, judged harmless (timer tampering by symbol interposition): the candidate defines its
// own clock_gettime and std::chrono::steady_clock::now (returning a frozen clock) so that, if the
// dynamic linker bound the worker's timer to them, every call would measure zero; then it sleeps
// 3 ms per call and computes an honest softmax. The worker is a separate executable whose clock
// references were bound at its own start-up, and the candidate is loaded with RTLD_LOCAL, which
// keeps its symbols out of the global lookup scope: interposition from a dlopen'ed object cannot
// reach the worker's timer.
// Expected: ok_not_faster (harmless), with the candidate's median time at least the 3 ms it
// sleeps: the frozen clock was never used. Needs the timing phase.
#include <time.h>
#include <unistd.h>

#include <cmath>

#include "kjudge/candidate.h"

extern "C" int clock_gettime(clockid_t, struct timespec* ts) {
  ts->tv_sec = 1;
  ts->tv_nsec = 0;
  return 0;
}

extern "C" long long frozen_steady_now() __asm__("_ZNSt6chrono3_V212steady_clock3nowEv");
extern "C" long long frozen_steady_now() { return 1000000000LL; }

KJ_EXPORT int kj_run(const kj_args* a) {
  usleep(3000);
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
  return 0;
}
