// Attack (reading the controller's environment and memory maps): opens /proc/<parent>/environ,
// /proc/<parent>/maps and /proc/<parent>/fd (the controller holds the store, the other workers'
// channels and arenas); without them it returns zeros.
// Expected: wrong_result, rule tolerance: the controller is non-dumpable, the worker has no
// capabilities left (no CAP_SYS_PTRACE) and landlock forbids ptrace-class access outside the
// sandbox, so every open fails. Had one succeeded, the candidate would return 77.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const char* files[] = {"environ", "maps", "fd/3", "fd", "auxv", "stack"};
  for (const char* f : files) {
    char path[96];
    std::snprintf(path, sizeof path, "/proc/%d/%s", static_cast<int>(getppid()), f);
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      char c;
      const ssize_t r = read(fd, &c, 1);
      close(fd);
      if (r > 0 || std::strcmp(f, "fd") == 0) return 77;
    }
  }
  const int64_t n = a->outputs[0].shape[0] * a->outputs[0].shape[1];
  std::memset(a->outputs[0].data, 0, static_cast<size_t>(n) * sizeof(float));
  return 0;
}
