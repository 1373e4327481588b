// Test candidate (softmax). Never returns: spins forever in kj_run, on the first call. The
// worker's wall-clock watchdog must kill it.
// Expected verdict: timeout (eval exit status 1).
#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  (void)a;
  // A side-effect-free infinite loop is undefined behaviour in C++ and may be deleted; the
  // volatile counter keeps it real.
  volatile unsigned long spin = 0;
  for (;;) spin = spin + 1;
  return 0;
}
