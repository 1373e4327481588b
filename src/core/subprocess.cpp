#include "core/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "core/error.hpp"
#include "core/guardian.hpp"
#include "core/interrupt.hpp"

extern char** environ;

namespace kjudge {

command_result run_command(const std::vector<std::string>& argv, const command_options& o) {
  if (argv.empty()) throw internal_error("run_command: empty argv");
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) throw internal_error(std::string("pipe: ") + std::strerror(errno));
  std::vector<std::string> env_s;
  for (char** e = environ; !o.clean_env && *e != nullptr; ++e) {
    std::string kv(*e);
    const auto eq = kv.find('=');
    if (eq != std::string::npos && o.extra_env.count(kv.substr(0, eq))) continue;
    env_s.push_back(std::move(kv));
  }
  for (const auto& [k, v] : o.extra_env) env_s.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_s) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);
  const std::string cwd = o.cwd.string();

  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw internal_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    interrupt::unblock_in_child();
    ::dup2(pipefd[1], 1);
    ::dup2(pipefd[1], 2);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execvpe(args[0], args.data(), envp.data());
    const char msg[] = "exec failed\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  // Killed with kjudge if kjudge dies (a compiler, a proposer: core/guardian.hpp).
  guardian::watch_group(pid);
  ::close(pipefd[1]);
  command_result r;
  const auto deadline = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                 std::chrono::duration<double>(o.timeout_seconds));
  char buf[65536];
  bool open = true;
  while (open) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    pollfd pfd{pipefd[0], POLLIN, 0};
    const int pr = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(ms + 1, 500)));
    if (pr < 0 && errno != EINTR) break;
    if (pr <= 0) continue;
    const ssize_t n = ::read(pipefd[0], buf, sizeof buf);
    if (n <= 0) {
      open = false;
      break;
    }
    if (r.output.size() < o.max_output)
      r.output.append(buf, std::min<std::size_t>(static_cast<std::size_t>(n), o.max_output - r.output.size()));
  }
  ::close(pipefd[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::kill(-pid, SIGKILL);  // stragglers in its group
  guardian::forget_group(pid);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (WIFEXITED(status)) r.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace kjudge
