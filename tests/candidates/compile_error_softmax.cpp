// Test candidate (softmax). Does not compile: a missing semicolon and an undeclared name. The
// builder must report the compiler's diagnostics, not an internal error.
// Expected verdict: compile_error (eval exit status 1).
#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  int64_t n = a->inputs[0].shape[1]
  return undeclared_helper(a, n);
}
