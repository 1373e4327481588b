// Attack (reading the judge's files): opens the results store (~/.local/share/kjudge/kjudge.db
// of the real home, read from /etc/passwd, and the test stores under /tmp), the build cache of other
// candidates and the problem directory, looking for past verdicts, hidden cases or reference
// outputs; without them it returns zeros.
// Expected: wrong_result, rule tolerance: landlock leaves the worker only the system directories
// (read-only), its own library directory and its scratch directory. Had any of these opened, the
// candidate would return 77 (runtime_error), failing this expectation.
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <unistd.h>

#include <cstring>
#include <cstdio>
#include <string>
#include <vector>

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

static bool can_open(const std::string& p) {
  const int fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  close(fd);
  return true;
}

KJ_EXPORT int kj_run(const kj_args* a) {
  std::vector<std::string> targets;
  const std::string home = real_home();
  targets.push_back(home + "/.local/share/kjudge/kjudge.db");
  targets.push_back(home + "/.cache/kjudge/build");
  targets.push_back(home + "/.cache/kjudge/scratch");
  targets.push_back(home + "/.cache/kjudge/ceilings-cpu.json");
  targets.push_back("/work/main/problems/softmax/problem.toml");
  glob_t g{};
  if (glob("/tmp/kjudge-it-*/store.db", 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) targets.push_back(g.gl_pathv[i]);
  globfree(&g);
  for (const auto& t : targets)
    if (can_open(t)) return 77;
  const int64_t n = a->outputs[0].shape[0] * a->outputs[0].shape[1];
  std::memset(a->outputs[0].data, 0, static_cast<size_t>(n) * sizeof(float));
  return 0;
}
