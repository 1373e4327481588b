// Attack (exiting early with status 0, cuda): _exit(0) inside kj_run after launching nothing.
// Expected: hack, rule early_exit.
#include <unistd.h>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  (void)a;
  _exit(0);
}
