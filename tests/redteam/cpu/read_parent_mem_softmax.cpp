// Attack (reading the controller's memory through /proc): opens /proc/<parent>/mem and reads the
// controller's heap (where the per-run secret and the recheck decisions live), at addresses from
// its own layout guesses (the controller's maps are unreadable too); without the secret it
// returns zeros.
// Expected: wrong_result, rule tolerance: open(/proc/<ppid>/mem) fails (non-dumpable controller,
// no CAP_SYS_PTRACE, landlock's ptrace scoping). Had it opened, the candidate would return 77.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/mem", static_cast<int>(getppid()));
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    close(fd);
    return 77;
  }
  const int64_t n = a->outputs[0].shape[0] * a->outputs[0].shape[1];
  std::memset(a->outputs[0].data, 0, static_cast<size_t>(n) * sizeof(float));
  return 0;
}
