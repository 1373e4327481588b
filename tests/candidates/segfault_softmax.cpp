// Test candidate (softmax). Crashes: stores through a null pointer on every call (SIGSEGV in
// the worker). The judge must survive it and stay usable for the next candidate.
// Expected verdict: crash (eval exit status 1).
#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  (void)a;
  volatile float* p = nullptr;  // volatile: the store must not be optimised into a trap or away
  *p = 1.0f;
  return 0;
}
