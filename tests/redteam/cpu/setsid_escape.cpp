// Attack (escaping the watchdog): setsid() leaves the worker's process group, which the
// controller kills as a whole on a timeout (a helper in a new session would survive it).
// Expected: hack, rule sandbox_violation (seccomp: setsid/setpgid).
#include <unistd.h>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  setsid();
  (void)a;
  return 77;
}
