// Attack (new processes): fork() a child that outlives the call (and could keep computing,
// escape the watchdog or exec a tool).
// Expected: hack, rule sandbox_violation (seccomp: fork/vfork/clone without CLONE_THREAD/execve).
#include <unistd.h>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const pid_t p = fork();
  if (p == 0) {
    execl("/bin/true", "true", static_cast<char*>(nullptr));
    _exit(0);
  }
  (void)a;
  return 77;
}
