// Attack: kill the controller without kill(2): open /proc/<ppid> (a pidfd since Linux 5.1) and
// send SIGKILL through pidfd_send_signal, which a filter on kill/tgkill alone does not see. With
// the controller gone nobody is left to deliver a verdict (and a wrapper script might read the
// missing verdict as success).
// Expected: hack, rule sandbox_violation (seccomp kills the worker on pidfd_send_signal; landlock
// signal scoping is a second layer where the kernel has it).
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d", (int)getppid());
  const int fd = open(path, O_RDONLY | O_DIRECTORY);
  if (fd >= 0) syscall(SYS_pidfd_send_signal, fd, SIGKILL, nullptr, 0);
  // Still alive (and so is the controller): leave the output unwritten.
  (void)a;
  return 0;
}
