#include "pool/process_census.hpp"

#include <dirent.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/text.hpp"

namespace kjudge {

namespace {

// A small /proc file, whole (they are generated at read time and shorter than a page).
bool read_small(const std::string& path, std::string& out) {
  std::FILE* f = std::fopen(path.c_str(), "re");
  if (f == nullptr) return false;
  char buf[4096];
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  out.assign(buf, n);
  return n > 0;
}

// /proc/<pid>/stat after the command's closing parenthesis (the command may hold spaces and
// parentheses): field 3 (state) onwards.
struct stat_fields {
  char state = '?';
  pid_t pgrp = 0;
  unsigned long long utime = 0, stime = 0, cutime = 0, cstime = 0;  // clock ticks
  long threads = 0;
  std::string command;
};

bool read_stat(const std::string& dir, stat_fields& s) {
  std::string text;
  if (!read_small(dir + "/stat", text)) return false;
  const auto open = text.find('(');
  const auto close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  s.command = text.substr(open + 1, close - open - 1);
  // state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
  // priority nice num_threads
  long long ppid = 0, pgrp = 0, session = 0, tty = 0, tpgid = 0, prio = 0, nice = 0;
  unsigned long long flags = 0, minflt = 0, cminflt = 0, majflt = 0, cmajflt = 0;
  const int n = std::sscanf(text.c_str() + close + 1,
                            " %c %lld %lld %lld %lld %lld %llu %llu %llu %llu %llu %llu %llu %llu %llu %lld %lld %ld",
                            &s.state, &ppid, &pgrp, &session, &tty, &tpgid, &flags, &minflt, &cminflt, &majflt,
                            &cmajflt, &s.utime, &s.stime, &s.cutime, &s.cstime, &prio, &nice, &s.threads);
  s.pgrp = static_cast<pid_t>(pgrp);
  return n == 18;
}

template <typename F>
void for_each_numeric_entry(const std::string& dir, F&& f) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long v = std::strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == 0) f(static_cast<pid_t>(v));
  }
  ::closedir(d);
}

// The live processes below `pid` (children of any of its threads, recursively).
void collect_descendants(pid_t pid, std::vector<pid_t>& out, int depth) {
  if (depth > 64) return;
  const std::string task = "/proc/" + std::to_string(pid) + "/task";
  for_each_numeric_entry(task, [&](pid_t tid) {
    std::string text;
    if (!read_small(task + "/" + std::to_string(tid) + "/children", text)) return;
    const char* p = text.c_str();
    char* end = nullptr;
    for (long child = std::strtol(p, &end, 10); end != p; child = std::strtol(p, &end, 10)) {
      out.push_back(static_cast<pid_t>(child));
      collect_descendants(static_cast<pid_t>(child), out, depth + 1);
      p = end;
    }
  });
}

}  // namespace

double ticks_to_seconds(long long ticks) {
  static const double hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
  return static_cast<double>(ticks) / hz;
}

long long machine_busy_ticks() {
  std::string text;
  if (!read_small("/proc/stat", text)) return 0;
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (std::sscanf(text.c_str(), "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &system, &idle, &iowait,
                  &irq, &softirq, &steal) != 8)
    return 0;
  return static_cast<long long>(user + nice + system + irq + softirq + steal);
}

long long process_ticks(pid_t pid, bool with_descendants) {
  stat_fields s;
  if (!read_stat("/proc/" + std::to_string(pid), s)) return 0;
  auto total = static_cast<long long>(s.utime + s.stime + s.cutime + s.cstime);
  if (with_descendants) {
    std::vector<pid_t> below;
    collect_descendants(pid, below, 0);
    for (const pid_t d : below) {
      stat_fields ds;
      if (read_stat("/proc/" + std::to_string(d), ds))
        total += static_cast<long long>(ds.utime + ds.stime + ds.cutime + ds.cstime);
    }
  }
  return total;
}

process_usage read_process_usage(pid_t pid, bool with_descendants) {
  process_usage u;
  const std::string dir = "/proc/" + std::to_string(pid);
  stat_fields s;
  if (!read_stat(dir, s)) return u;
  u.readable = true;
  u.threads = static_cast<int>(s.threads);
  // CPU time in the kernel's ticks (every thread; /proc/<pid>/schedstat would be exact but reads
  // 0 on kernels that keep no scheduler statistics, this VM's among them), and the involuntary
  // switches of every thread.
  for_each_numeric_entry(dir + "/task", [&](pid_t tid) {
    std::string text;
    if (read_small(dir + "/task/" + std::to_string(tid) + "/status", text)) {
      const auto at = text.find("nonvoluntary_ctxt_switches:");
      if (at != std::string::npos) u.involuntary_switches += std::strtol(text.c_str() + at + 27, nullptr, 10);
    }
  });
  u.cpu_seconds = ticks_to_seconds(static_cast<long long>(s.utime + s.stime + s.cutime + s.cstime));
  if (with_descendants) {
    std::vector<pid_t> below;
    collect_descendants(pid, below, 0);
    for (const pid_t d : below) {
      stat_fields ds;
      if (!read_stat("/proc/" + std::to_string(d), ds)) continue;
      ++u.descendants;
      u.cpu_seconds += ticks_to_seconds(static_cast<long long>(ds.utime + ds.stime + ds.cutime + ds.cstime));
    }
  }
  return u;
}

std::vector<group_member> group_members(pid_t pgid, pid_t except) {
  std::vector<group_member> out;
  for_each_numeric_entry("/proc", [&](pid_t pid) {
    if (pid == except) return;
    stat_fields s;
    if (!read_stat("/proc/" + std::to_string(pid), s) || s.pgrp != pgid || s.state == 'Z') return;
    out.push_back(group_member{pid, untrusted_text(s.command, 32), s.state,
                               ticks_to_seconds(static_cast<long long>(s.utime + s.stime))});
  });
  return out;
}

nlohmann::json to_json(const std::vector<group_member>& members) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& m : members)
    a.push_back({{"pid", m.pid}, {"command", m.command}, {"state", std::string(1, m.state)}, {"cpu_s", m.cpu_seconds}});
  return a;
}

bool become_subreaper() {
  return ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
}

int reap_group(pid_t pgid) {
  int n = 0;
  int status = 0;
  while (::waitpid(-pgid, &status, WNOHANG) > 0) ++n;
  return n;
}

}  // namespace kjudge
