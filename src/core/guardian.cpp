#include "core/guardian.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <system_error>

namespace kjudge::guardian {

namespace {

int g_fd = -1;                    // the controller's end; -1 without a guardian
constexpr int grace_polls = 100;  // x 50 ms: the grace period between SIGTERM and SIGKILL, 5 s

void send_line(char op, const std::string& what) {
  if (g_fd < 0) return;
  const std::string line = std::string(1, op) + what + "\n";
  // One write of a short line on a stream socket: the guardian reads whole lines. MSG_NOSIGNAL: a
  // guardian that died must not take kjudge with it (SIGPIPE).
  const ssize_t w = ::send(g_fd, line.data(), line.size(), MSG_NOSIGNAL);
  (void)w;
}

[[noreturn]] void run_guardian(int fd) {
  ::prctl(PR_SET_NAME, "kjudge-guardian");
  // Its own session: a signal to kjudge's process group (Ctrl-C, a timeout killing the group)
  // does not reach it, so it can clean up after them.
  ::setsid();
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU}) ::signal(sig, SIG_IGN);
  const int null = ::open("/dev/null", O_RDWR);
  for (int i = 0; i < 3; ++i) ::dup2(null, i);
  const int keep = ::fcntl(fd, F_DUPFD, 3);
  ::syscall(SYS_close_range, 3u, static_cast<unsigned>(keep) - 1, 0u);
  ::syscall(SYS_close_range, static_cast<unsigned>(keep) + 1, ~0u, 0u);
  std::set<pid_t> groups;
  std::set<std::string> dirs;
  std::string pending;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(keep, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // kjudge is gone
    pending.append(buf, static_cast<std::size_t>(n));
    for (auto nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n')) {
      const std::string line = pending.substr(0, nl);
      pending.erase(0, nl + 1);
      if (line.size() < 2) continue;
      const std::string arg = line.size() > 3 ? line.substr(3) : std::string();
      if (line.compare(0, 2, "+g") == 0) groups.insert(static_cast<pid_t>(std::atol(arg.c_str())));
      if (line.compare(0, 2, "-g") == 0) groups.erase(static_cast<pid_t>(std::atol(arg.c_str())));
      if (line.compare(0, 2, "+d") == 0) dirs.insert(arg);
      if (line.compare(0, 2, "-d") == 0) dirs.erase(arg);
    }
  }
  // SIGTERM first, so that a proposer (an agent, say) can leave cleanly; SIGKILL to what is
  // still there after the grace period (kjudge's own workers end at SIGTERM).
  for (const pid_t g : groups)
    if (g > 1) ::kill(-g, SIGTERM);
  for (int i = 0; i < grace_polls; ++i) {
    bool alive = false;
    for (const pid_t g : groups) alive = alive || (g > 1 && ::kill(-g, 0) == 0);
    if (!alive) break;
    ::usleep(50000);
  }
  for (const pid_t g : groups)
    if (g > 1) ::kill(-g, SIGKILL);
  for (const auto& d : dirs) {
    std::error_code ec;
    std::filesystem::remove_all(d, ec);
  }
  ::_exit(0);
}

}  // namespace

namespace {

// The guardian's own command line: main's argument memory (contiguous, NUL-separated) rewritten.
void rename_command_line(int argc, char** argv) {
  if (argc < 1 || argv == nullptr || argv[0] == nullptr) return;
  char* begin = argv[0];
  char* end = argv[argc - 1] + std::strlen(argv[argc - 1]);
  std::memset(begin, 0, static_cast<std::size_t>(end - begin));
  constexpr char name[] = "kjudge-guardian";
  std::memcpy(begin, name, std::min(sizeof name - 1, static_cast<std::size_t>(end - begin)));
}

}  // namespace

bool start(int argc, char** argv) {
  if (g_fd >= 0) return true;
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return false;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(sv[0]);
    ::close(sv[1]);
    return false;
  }
  if (pid == 0) {
    ::close(sv[0]);
    rename_command_line(argc, argv);
    run_guardian(sv[1]);
  }
  ::close(sv[1]);
  g_fd = sv[0];
  return true;
}

namespace {

std::mutex g_mutex;
std::set<pid_t>& groups_here() {
  static std::set<pid_t> s;
  return s;
}

}  // namespace

void watch_group(pid_t pgid) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    groups_here().insert(pgid);
  }
  send_line('+', "g " + std::to_string(pgid));
}

void forget_group(pid_t pgid) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    groups_here().erase(pgid);
  }
  send_line('-', "g " + std::to_string(pgid));
}

std::vector<pid_t> watched_groups() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return {groups_here().begin(), groups_here().end()};
}

void watch_directory(const std::filesystem::path& dir) {
  send_line('+', "d " + dir.string());
}
void forget_directory(const std::filesystem::path& dir) {
  send_line('-', "d " + dir.string());
}

}  // namespace kjudge::guardian
