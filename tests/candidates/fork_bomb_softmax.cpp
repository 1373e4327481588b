// Test candidate (softmax). Fork bomb: forks in a loop inside kj_run. The sandbox forbids new
// processes after setup, so the first fork kills the worker (SIGSYS); kjudge itself and the
// machine are unaffected.
// Expected verdict: hack, rule sandbox_violation (eval exit status 1).
#include <unistd.h>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  (void)a;
  for (;;) (void)fork();
  return 0;
}
