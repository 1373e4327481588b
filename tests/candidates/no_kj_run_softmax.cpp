// Test candidate (softmax). Compiles to a valid shared object but exports no kj_run (the entry
// point is misspelled), so there is nothing to call. This is a malformed submission, not a
// wrong kernel.
// Expected verdict: bad_input (eval exit status 2).
#include "kjudge/candidate.h"

KJ_EXPORT int kj_runn(const kj_args* a) {
  (void)a;
  return 0;
}
