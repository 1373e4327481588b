// Attack (exiting early at load time): exit(0) from a constructor, before the worker can answer
// the handshake.
// Expected: hack, rule early_exit.
#include <cstdlib>

#include "kjudge/candidate.h"

__attribute__((constructor)) static void on_load() { std::exit(0); }

KJ_EXPORT int kj_run(const kj_args* a) {
  (void)a;
  return 0;
}
