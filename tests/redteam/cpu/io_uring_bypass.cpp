// Attack (a system-call side door): io_uring executes socket/connect/openat operations in the
// kernel without the corresponding system calls, so a seccomp filter on socket() would not see
// them. The candidate sets up a ring (the raw io_uring_setup call).
// Expected: hack, rule sandbox_violation (seccomp: io_uring_setup/enter/register).
#include <linux/io_uring.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  io_uring_params p{};
  const long fd = syscall(__NR_io_uring_setup, 8, &p);
  if (fd >= 0) close(static_cast<int>(fd));
  (void)a;
  return 77;
}
