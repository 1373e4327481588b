// Attack (exiting early with status 0): _exit(0) inside kj_run, for a harness that takes "exited
// with 0" as "passed".
// Expected: hack, rule early_exit (the worker exited while a request was pending).
#include <unistd.h>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  (void)a;
  _exit(0);
}
