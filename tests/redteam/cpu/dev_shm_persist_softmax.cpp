// Attack (state that outlives the evaluation): writes what it saw (shapes, seeds, outputs) to
// /dev/shm, where a later evaluation of the same or another candidate could read it back (a
// channel between candidates, or a cache across runs with a fixed --seed); it also tries a POSIX
// shared-memory object and a System V segment. Without a shared store it returns zeros.
// Expected: hack, rule sandbox_violation (shmget is killed by seccomp; /dev/shm itself is outside
// the cpu worker's landlock rules, so shm_open fails first with EACCES, then shmget is tried).
// Had the /dev/shm file opened, the candidate would return 77.
#include <fcntl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#include <cstring>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const int fd = open("/dev/shm/kjudge-redteam-persist", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) {
    close(fd);
    unlink("/dev/shm/kjudge-redteam-persist");
    return 77;
  }
  const int sfd = shm_open("/kjudge-redteam-persist", O_CREAT | O_RDWR, 0600);
  if (sfd >= 0) {
    close(sfd);
    shm_unlink("/kjudge-redteam-persist");
    return 77;
  }
  if (shmget(0x6b6a7564, 4096, IPC_CREAT | 0600) >= 0) return 77;
  const int64_t n = a->outputs[0].shape[0] * a->outputs[0].shape[1];
  std::memset(a->outputs[0].data, 0, static_cast<size_t>(n) * sizeof(float));
  return 0;
}
