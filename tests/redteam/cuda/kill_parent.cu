// Attack (killing the controller, cuda worker): kill(getppid(), SIGKILL) from kj_run.
// Expected: hack, rule sandbox_violation (the cuda worker has the same seccomp filter).
#include <signal.h>
#include <unistd.h>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  kill(getppid(), SIGKILL);
  (void)a;
  return 0;
}
