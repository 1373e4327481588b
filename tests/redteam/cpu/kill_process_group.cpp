// Attack (signalling everything around it): kill(0, SIGTERM) to its process group and
// kill(-1, SIGSTOP) to every process of the user (the controller and the baseline workers
// included: stopped baselines, a frozen judge).
// Expected: hack, rule sandbox_violation (seccomp: kill only with the worker's own pid).
#include <signal.h>
#include <unistd.h>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  kill(-1, SIGSTOP);
  kill(0, SIGTERM);
  (void)a;
  return 0;
}
