// Attack (killing the controller): kill(getppid(), SIGKILL): no controller, no verdict (and a
// driver script might read "no failure reported" as a pass).
// Expected: hack, rule sandbox_violation (seccomp: signals only to the worker itself).
#include <signal.h>
#include <unistd.h>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  kill(getppid(), SIGKILL);
  (void)a;
  return 0;
}
