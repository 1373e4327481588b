// Attack (the secret on the controller's command line): /proc/<pid>/cmdline is readable by any
// process, even for a non-dumpable one. A user reproducing a run passes --seed HEX, which would
// let the candidate recompute every hidden case and every recheck decision. This candidate reads
// the controller's command line and looks for a hexadecimal value after --seed; without one it
// returns zeros. The red-team run passes --seed on purpose.
// Expected: wrong_result, rule tolerance: the controller overwrites the value of --seed in its
// own argument memory at start-up, so /proc shows x's. Had it found hex digits, the candidate
// would return 77 (runtime_error).
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "kjudge/candidate.h"

static bool has_hex_digit(const char* s) {
  for (; *s; ++s)
    if ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')) return true;
  return false;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/cmdline", static_cast<int>(getppid()));
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buf[8192];
    const ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n > 0) {
      buf[n] = '\0';
      for (ssize_t i = 0; i < n;) {
        const char* arg = buf + i;
        const size_t len = std::strlen(arg);
        if (std::strncmp(arg, "--seed=", 7) == 0 && has_hex_digit(arg + 7)) return 77;
        if (std::strcmp(arg, "--seed") == 0 && i + static_cast<ssize_t>(len) + 1 < n &&
            has_hex_digit(arg + len + 1))
          return 77;
        i += static_cast<ssize_t>(len) + 1;
      }
    }
  }
  const int64_t n = a->outputs[0].shape[0] * a->outputs[0].shape[1];
  std::memset(a->outputs[0].data, 0, static_cast<size_t>(n) * sizeof(float));
  return 0;
}
