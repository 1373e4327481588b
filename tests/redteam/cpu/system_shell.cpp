// Attack (running a shell): system("cat /proc/$PPID/environ > /tmp/leak") through libc
// (posix_spawn: clone(CLONE_VM|CLONE_VFORK) then execve).
// Expected: hack, rule sandbox_violation.
#include <cstdlib>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int r = std::system("cat /proc/$PPID/environ > /tmp/kjudge-redteam-leak");
  (void)a;
  (void)r;
  return 77;
}
