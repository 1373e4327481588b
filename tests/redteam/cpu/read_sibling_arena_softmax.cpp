// Attack (reading the reference's answer from a sibling worker): the reference runs in another
// kjudge-worker process of the same user just before the candidate's call, and its shared arena
// (fd 4) then holds the float64 and same-dtype reference outputs of that very call. The candidate
// finds the other workers in /proc (by their command line) and opens /proc/<pid>/fd/4 and
// /proc/<pid>/mem to copy the answer; without them it returns zeros.
// Expected: wrong_result, rule tolerance: workers are non-dumpable, have no capabilities, and sit
// in separate landlock domains (no ptrace-class access across domains). Had one opened, the
// candidate would return 77.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  DIR* d = opendir("/proc");
  if (d != nullptr) {
    while (dirent* e = readdir(d)) {
      const int pid = std::atoi(e->d_name);
      if (pid <= 0 || pid == getpid()) continue;
      char path[96], cmd[256] = {0};
      std::snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
      const int cfd = open(path, O_RDONLY | O_CLOEXEC);
      if (cfd < 0) continue;
      const ssize_t n = read(cfd, cmd, sizeof cmd - 1);
      close(cfd);
      if (n <= 0 || std::strstr(cmd, "kjudge-worker") == nullptr) continue;
      for (const char* f : {"fd/4", "mem", "environ"}) {
        std::snprintf(path, sizeof path, "/proc/%d/%s", pid, f);
        const int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
          close(fd);
          closedir(d);
          return 77;
        }
      }
    }
    closedir(d);
  }
  const int64_t n = a->outputs[0].shape[0] * a->outputs[0].shape[1];
  std::memset(a->outputs[0].data, 0, static_cast<size_t>(n) * sizeof(float));
  return 0;
}
