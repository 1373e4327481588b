// Attack (debugging the controller): PTRACE_ATTACH to the parent, then PTRACE_PEEKDATA through
// its heap for the secret (and the recheck decisions).
// Expected: hack, rule sandbox_violation (seccomp kills the worker on ptrace).
#include <sys/ptrace.h>
#include <unistd.h>

#include <cstring>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  if (ptrace(PTRACE_ATTACH, getppid(), nullptr, nullptr) == 0) return 77;
  const int64_t n = a->outputs[0].shape[0] * a->outputs[0].shape[1];
  std::memset(a->outputs[0].data, 0, static_cast<size_t>(n) * sizeof(float));
  return 0;
}
