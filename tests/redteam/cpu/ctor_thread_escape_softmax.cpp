// Attack (escaping the sandbox through a thread started at load time): a constructor runs when
// the shared object is mapped and starts a thread. If the worker mapped the candidate before
// sandboxing itself, that thread would keep every privilege (capabilities, landlock and, without
// TSYNC, seccomp apply per thread): on the first call it lists other candidates' build
// directories and opens a socket, and the call returns 77 if either worked.
// Expected: hack, rule sandbox_violation (the sandbox is applied before the candidate is mapped,
// so the thread inherits it and socket() kills the worker).
#include <dirent.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "kjudge/candidate.h"

// The real home directory from /etc/passwd (getpwuid may ask a name service over a socket).
static std::string real_home() {
  FILE* f = std::fopen("/etc/passwd", "r");
  if (f == nullptr) return "/root";
  char line[512];
  std::string home = "/root";
  const std::string uid = ":" + std::to_string(getuid()) + ":";
  while (std::fgets(line, sizeof line, f)) {
    std::string l(line);
    const auto p1 = l.find(':'), p2 = l.find(':', p1 + 1);
    if (p2 != std::string::npos && l.compare(p2, uid.size(), uid) == 0) {
      size_t a = p2;
      for (int k = 0; k < 3; ++k) a = l.find(':', a + 1);
      const size_t b = l.find(':', a + 1);
      if (a != std::string::npos && b != std::string::npos) home = l.substr(a + 1, b - a - 1);
      break;
    }
  }
  std::fclose(f);
  return home;
}

static std::atomic<int> g_go{0}, g_escaped{0}, g_done{0};

__attribute__((constructor)) static void on_load() {
  std::thread([] {
    while (g_go.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (DIR* d = opendir((real_home() + "/.cache/kjudge/build").c_str())) {
      closedir(d);
      g_escaped = 1;
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
