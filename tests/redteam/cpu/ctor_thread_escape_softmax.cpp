// Attack (escaping the sandbox through a thread started at load time): a constructor runs when
// the shared object is mapped and starts a thread. If the worker mapped the candidate before
// sandboxing itself, that thread would keep every privilege (capabilities, landlock and, without
// TSYNC, seccomp apply per thread): on the first call it lists other candidates' build
// directories and opens a socket, and the call returns 77 if either worked.
// Expected: hack, rule sandbox_violation (the sandbox is applied before the candidate is mapped,
// so the thread inherits it and socket() kills the worker).
#include <dirent.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "kjudge/candidate.h"

static std::atomic<int> g_go{0}, g_escaped{0}, g_done{0};

__attribute__((constructor)) static void on_load() {
  std::thread([] {
    while (g_go.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (const passwd* pw = getpwuid(getuid())) {
      if (DIR* d = opendir((std::string(pw->pw_dir) + "/.cache/kjudge/build").c_str())) {
        closedir(d);
        g_escaped = 1;
      }
    }
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s >= 0) {
      close(s);
      g_escaped = 1;
    }
    g_done = 1;
  }).detach();
}

KJ_EXPORT int kj_run(const kj_args* a) {
  g_go = 1;
  for (int i = 0; i < 2000 && g_done.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (g_escaped.load()) return 77;
  (void)a;
  return 0;
}
