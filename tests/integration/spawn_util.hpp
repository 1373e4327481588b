// Starts a command without waiting for it (for the tests that kill -9 or signal a running kjudge).
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kjudge::test {

// Forks and execs argv[0] with these variables set, its output (stdout and stderr) to `log`; returns
// the child's pid. A child that cannot exec exits 127.
inline pid_t spawn_command(std::vector<std::string> argv, const std::filesystem::path& log,
                           const std::map<std::string, std::string>& env = {}) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    std::vector<char*> a;
    for (auto& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    ::execv(a[0], a.data());
    ::_exit(127);
  }
  return pid;
}

}  // namespace kjudge::test
