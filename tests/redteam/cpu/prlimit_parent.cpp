// Attack: cripple the controller through resource limits: prlimit(getppid(), RLIMIT_CPU, 1 s)
// (and RLIMIT_NOFILE 0) — allowed between processes of the same user, and not a signal, so a
// kill filter does not see it. The controller would die of SIGXCPU or fail to open files while
// judging, and its baselines could be slowed the same way.
// Expected: hack, rule sandbox_violation (seccomp: prlimit64 on another process).
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  struct rlimit rl = {1, 1};
  syscall(SYS_prlimit64, getppid(), RLIMIT_CPU, &rl, nullptr);
  struct rlimit nf = {0, 0};
  syscall(SYS_prlimit64, getppid(), RLIMIT_NOFILE, &nf, nullptr);
  (void)a;
  return 0;
}
