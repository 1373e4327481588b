// Attack (reading the controller's environment and memory maps): reads /proc/<parent>/environ,
// maps, auxv, stack and the descriptors' and working directory's links (the controller holds the
// store, the other workers' channels and arenas); without them it returns zeros. (Where the
// worker runs as root, it can list the names in /proc/<parent>/fd, owned by root once the
// controller is non-dumpable, but open or resolve none of them.)
// Expected: wrong_result, rule tolerance: the controller is non-dumpable, the worker has no
// capabilities left (no CAP_SYS_PTRACE) and landlock forbids ptrace-class access outside the
// sandbox, so every open fails. Had one succeeded, the candidate would return 77.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  const char* files[] = {"environ", "maps", "fd/3", "auxv", "stack", "mem"};
  for (const char* f : files) {
    char path[96];
    std::snprintf(path, sizeof path, "/proc/%d/%s", static_cast<int>(getppid()), f);
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      char c;
      const ssize_t r = read(fd, &c, 1);
      close(fd);
      if (r > 0) return 77;
    }
  }
  // Where the controller's descriptors and working directory lead (the store, the repository).
  for (const char* l : {"fd/3", "fd/4", "cwd", "exe", "root"}) {
    char path[96], target[512];
    std::snprintf(path, sizeof path, "/proc/%d/%s", static_cast<int>(getppid()), l);
    if (readlink(path, target, sizeof target) > 0) return 77;
  }
  const int64_t n = a->outputs[0].shape[0] * a->outputs[0].shape[1];
  std::memset(a->outputs[0].data, 0, static_cast<size_t>(n) * sizeof(float));
  return 0;
}
