#include "pool/worker_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/guardian.hpp"
#include "core/interrupt.hpp"
#include "core/text.hpp"
#include "pool/detail/private_mounts.hpp"
#include "pool/process_census.hpp"
#include "pool/syscall_monitor.hpp"

namespace kjudge {

namespace {

std::chrono::steady_clock::time_point deadline_in(double s) {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

// KJUDGE_TRACE_REQUESTS=FILE: one line per request the controller makes of a worker, appended to
// FILE: seconds since the first traced event, the worker's role and pid, the request's type, and
// the seconds the controller waited for the reply. The gaps between a reply and the next request
// are the controller's own work. For finding where a time to verdict goes (a KernelBench
// validation took ~85 s a problem); off unless the variable is set.
struct request_trace {
  std::FILE* file = nullptr;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  request_trace() {
    if (const char* p = std::getenv("KJUDGE_TRACE_REQUESTS"); p != nullptr && *p != 0) file = std::fopen(p, "a");
  }
  request_trace(const request_trace&) = delete;
  request_trace& operator=(const request_trace&) = delete;
  ~request_trace() {
    if (file != nullptr) std::fclose(file);
  }
  // reply: the worker's reply; where it carries phases_s (a reference request's parts), they
  // follow the wait as part=seconds.
  void log(const std::string& role, pid_t pid, const std::string& type, std::chrono::steady_clock::time_point sent,
           const json& reply) {
    if (file == nullptr) return;
    const auto now = std::chrono::steady_clock::now();
    std::string parts;
    if (reply.is_object() && reply.contains("phases_s") && reply["phases_s"].is_object())
      for (const auto& [k, v] : reply["phases_s"].items())
        if (v.is_number()) parts += fmt::format(" {}={:.3f}", k, v.get<double>());
    std::fprintf(file, "%10.3f %-9s %7d %-14s %9.3f%s\n", std::chrono::duration<double>(now - t0).count(), role.c_str(),
                 static_cast<int>(pid), type.c_str(), std::chrono::duration<double>(now - sent).count(), parts.c_str());
    std::fflush(file);
  }
};

request_trace& tracer() {
  static request_trace t;
  return t;
}

std::string signal_name(int sig) {
  const char* d = ::sigdescr_np(sig);
  return std::string(d ? d : "signal") + " (signal " + std::to_string(sig) + ")";
}

}  // namespace

std::string_view worker_fault_name(worker_fault f) {
  switch (f) {
    case worker_fault::crash:
      return "crash";
    case worker_fault::timeout:
      return "timeout";
    case worker_fault::resource_limit:
      return "resource_limit";
    case worker_fault::sandbox_violation:
      return "sandbox_violation";
    case worker_fault::forged_message:
      return "forged_message";
    case worker_fault::early_exit:
      return "early_exit";
    case worker_fault::worker_error:
      return "worker_error";
  }
  return "?";
}

std::filesystem::path worker_executable(const std::string& backend) {
  if (const char* w = std::getenv("KJUDGE_WORKER"); w != nullptr && backend == "cpu") return w;
  if (const char* w = std::getenv("KJUDGE_WORKER_CUDA"); w != nullptr && backend == "cuda") return w;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto dir = ec ? std::filesystem::current_path() : self.parent_path();
  return dir / (backend == "cuda" ? "kjudge-worker-cuda" : "kjudge-worker");
}

worker_process::worker_process(worker_process&& o) noexcept
    : m_options(std::move(o.m_options)),
      m_pid(std::exchange(o.m_pid, -1)),
      m_channel(std::move(o.m_channel)),
      m_arena(std::move(o.m_arena)),
      m_ready(std::move(o.m_ready)),
      m_log(std::move(o.m_log)),
      m_sent_type(std::move(o.m_sent_type)),
      m_sent_at(o.m_sent_at),
      m_left_behind(std::move(o.m_left_behind)),
      m_monitor_key(o.m_monitor_key),
      m_launched_at(o.m_launched_at),
      m_load(std::move(o.m_load)) {}

worker_process& worker_process::operator=(worker_process&& o) noexcept {
  if (this != &o) {
    stop();
    m_options = std::move(o.m_options);
    m_pid = std::exchange(o.m_pid, -1);
    m_channel = std::move(o.m_channel);
    m_arena = std::move(o.m_arena);
    m_ready = std::move(o.m_ready);
    m_log = std::move(o.m_log);
    m_sent_type = std::move(o.m_sent_type);
    m_sent_at = o.m_sent_at;
    m_left_behind = std::move(o.m_left_behind);
    m_monitor_key = o.m_monitor_key;
    m_launched_at = o.m_launched_at;
    m_load = std::move(o.m_load);
  }
  return *this;
}

worker_process::~worker_process() {
  stop();
}

std::variant<worker_process, worker_failure> worker_process::launch(const worker_options& o) {
  worker_process w;
  w.m_options = o;
  std::filesystem::create_directories(o.scratch_dir);
  w.m_log = o.scratch_dir / "worker.log";
  w.m_arena = shared_arena::create(o.arena_bytes);

  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw internal_error(std::string("socketpair: ") + std::strerror(errno));
  // Descriptor 5 of the worker: where it hands the controller its seccomp listener (a worker that
  // may start processes; pool/syscall_monitor.hpp).
  int handoff[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, handoff) != 0)
    throw internal_error(std::string("socketpair: ") + std::strerror(errno));
  const int log_fd = ::open(w.m_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log_fd < 0) throw internal_error("cannot create " + w.m_log.string() + ": " + std::strerror(errno));

  const auto exe = o.executable.empty() ? worker_executable(o.backend) : o.executable;
  const std::string exe_s = exe.string();
  const std::string arena_s = std::to_string(w.m_arena.size());
  // A clean environment: nothing of the controller's (no seed, no paths to the store).
  std::vector<std::string> env_s{"PATH=/usr/local/bin:/usr/bin:/bin",
                                 "LANG=C",
                                 "LC_ALL=C",
                                 "HOME=" + o.scratch_dir.string(),
                                 "TMPDIR=" + o.scratch_dir.string(),
                                 "KJUDGE_SCRATCH=" + o.scratch_dir.string(),
                                 "KJUDGE_LIBRARY_DIR=" + o.library.parent_path().string()};
  // Parties are timed back to back: an OpenMP pool that keeps spinning after its call (the
  // default active wait lasts ~0.1-0.3 s) would steal the cores from the next party's sample.
  // Passive waiting makes every party start on an idle machine.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) env_s.emplace_back("OMP_WAIT_POLICY=PASSIVE");
  for (const char* keep :
       {"OMP_WAIT_POLICY", "OMP_NUM_THREADS", "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "CUDA_MODULE_LOADING",
        "NVIDIA_VISIBLE_DEVICES", "KJUDGE_SANDBOX_READ", "KJUDGE_CUPTI_DETACH"})
    if (const char* v = std::getenv(keep)) env_s.push_back(std::string(keep) + "=" + v);
  // The child writes what its private mounts applied into this entry (worker/sandbox.cpp reports
  // it): room reserved now, since the child may not allocate.
  const std::string ns_prefix = "KJUDGE_NAMESPACES=";
  env_s.push_back(ns_prefix + std::string(200, ' '));
  char* ns_report = env_s.back().data() + ns_prefix.size();
  const std::size_t ns_capacity = 200;
  std::vector<char*> envp;
  for (auto& s : env_s) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::optional<detail::private_mounts> mounts;
  if (o.sandbox)
    mounts.emplace(o.scratch_dir.string(), o.scratch_quota_bytes);
  else
    std::snprintf(ns_report, ns_capacity, "none: the worker runs without the sandbox");
  std::vector<char*> argv;
  for (const auto& a : o.launcher) argv.push_back(const_cast<char*>(a.c_str()));
  for (const char* a : {exe_s.c_str(), "--arena-bytes", arena_s.c_str()}) argv.push_back(const_cast<char*>(a));
  argv.push_back(nullptr);
  const std::string program = o.launcher.empty() ? exe_s : o.launcher.front();
  const pid_t parent = ::getpid();
  const int child_fd = sv[1];
  const int arena_fd = w.m_arena.fd();

  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(handoff[0]);
    ::close(handoff[1]);
    throw internal_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls from here to execve.
    ::setpgid(0, 0);
    interrupt::unblock_in_child();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(120);
    ::dup2(log_fd, 1);
    ::dup2(log_fd, 2);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    // fds 3 and 4 are the channel and the arena; dup via high numbers to avoid clobbering.
    const int c2 = ::fcntl(child_fd, F_DUPFD, 100);
    const int a2 = ::fcntl(arena_fd, F_DUPFD, 100);
    const int h2 = ::fcntl(handoff[1], F_DUPFD, 100);
    ::dup2(c2, 3);
    ::dup2(a2, 4);
    ::dup2(h2, 5);
    ::syscall(SYS_close_range, 6u, ~0u, 0u);
    rlimit rl{};
    if (o.memory_limit_bytes > 0) {
      rl.rlim_cur = rl.rlim_max = o.memory_limit_bytes;
      ::setrlimit(RLIMIT_AS, &rl);
    }
    rl.rlim_cur = static_cast<rlim_t>(o.cpu_limit_seconds);
    rl.rlim_max = static_cast<rlim_t>(o.cpu_limit_seconds) + 5;
    ::setrlimit(RLIMIT_CPU, &rl);
    rl.rlim_cur = rl.rlim_max = o.file_size_limit_bytes;
    ::setrlimit(RLIMIT_FSIZE, &rl);
    rl.rlim_cur = rl.rlim_max = 0;
    ::setrlimit(RLIMIT_CORE, &rl);
    rl.rlim_cur = rl.rlim_max = 256;
    ::setrlimit(RLIMIT_NOFILE, &rl);
    // Threads count against RLIMIT_NPROC too; seccomp forbids new processes anyway, this bounds a
    // thread bomb for non-root users (root is exempt from this limit).
    rl.rlim_cur = rl.rlim_max = 4096;
    ::setrlimit(RLIMIT_NPROC, &rl);
    if (mounts) mounts->apply(ns_report, ns_capacity);
    if (::chdir(o.scratch_dir.c_str()) != 0) ::_exit(121);
    ::execve(program.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so the group exists before any kill
  guardian::watch_group(pid);
  ::close(handoff[1]);
  w.m_monitor_key = syscall_monitor::expect(handoff[0]);
  w.m_launched_at = std::chrono::steady_clock::now();
  ::close(sv[1]);
  ::close(log_fd);
  w.m_pid = pid;
  w.m_channel = channel(sv[0]);
  w.m_channel.set_token(random_token());

  json hello{{"type", "hello"},
             {"library", o.library.string()},
             {"role", worker_role_name(o.role)},
             {"backend", o.backend},
             {"sandbox", o.sandbox},
             {"protocol", 1},
             {"pin_bytes", std::min(o.pin_bytes, o.arena_bytes)}};
  if (!w.m_channel.send(hello)) return w.classify_death(worker_fault::crash, "the worker did not start");
  return std::variant<worker_process, worker_failure>(std::in_place_index<0>, std::move(w));
}

std::optional<worker_failure> worker_process::await_ready() {
  auto r = receive(m_options.start_timeout_seconds);
  if (std::holds_alternative<worker_failure>(r)) {
    auto f = std::get<worker_failure>(std::move(r));
    stop();
    return f;
  }
  m_ready = std::get<json>(std::move(r));
  // kj_info (or a Python party's description) comes from the party's process: a short printable
  // line for the loop's family table, never a channel for anything else.
  if (m_ready.contains("info")) m_ready["info"] = untrusted_text(m_ready.value("info", std::string()), 512);
  if (m_ready.value("type", "") != "ready") {
    worker_failure f{worker_fault::forged_message, "unexpected first message: " + m_ready.dump().substr(0, 200)};
    f.role = m_options.role;
    stop();
    return f;
  }
  // What loading the party took and left running (a shared object's constructors, a Python
  // party's import), as the kernel counts it.
  const process_usage u = usage();
  m_load = json{{"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - m_launched_at).count()},
                {"cpu_s", u.cpu_seconds},
                {"threads", u.threads},
                {"descendants", u.descendants}};
  return std::nullopt;
}

std::variant<worker_process, worker_failure> worker_process::start(const worker_options& o) {
  auto launched = launch(o);
  if (std::holds_alternative<worker_failure>(launched)) return launched;
  if (auto f = std::get<worker_process>(launched).await_ready()) return *f;
  return launched;
}

bool worker_process::send(const json& message) {
  m_sent_type = message.value("type", "?");
  m_sent_at = std::chrono::steady_clock::now();
  return m_channel.send(message);
}

worker_reply worker_process::receive(double timeout_s) {
  json m;
  std::string err;
  const auto st = m_channel.receive(m, deadline_in(timeout_s), &err);
  tracer().log(worker_role_name(m_options.role), m_pid, m_sent_type, m_sent_at, m);
  switch (st) {
    case recv_status::ok:
      if (m.value("type", "") == "error") {
        worker_failure f;
        f.role = m_options.role;
        f.kind = worker_fault::worker_error;
        f.error_kind = m.value("kind", "internal");
        f.message = untrusted_text(m.value("message", ""), 4000);
        f.log_tail = log_tail();
        return f;
      }
      return m;
    case recv_status::timeout: {
      ::kill(-m_pid, SIGKILL);
      auto f = classify_death(worker_fault::timeout, "no answer within " + std::to_string(timeout_s) + " s");
      f.kind = worker_fault::timeout;
      return f;
    }
    case recv_status::malformed: {
      ::kill(-m_pid, SIGKILL);
      auto f = classify_death(worker_fault::forged_message, err);
      f.kind = worker_fault::forged_message;
      f.message = "channel integrity check failed: " + err;
      return f;
    }
    case recv_status::closed:
      return classify_death(worker_fault::crash, "the worker closed its channel");
  }
  return classify_death(worker_fault::crash, "?");
}

worker_reply worker_process::request(const json& r, double timeout_s) {
  if (!send(r)) return classify_death(worker_fault::crash, "the worker is gone");
  return receive(timeout_s);
}

worker_failure worker_process::classify_death(worker_fault fallback, const std::string& what) {
  worker_failure f;
  f.role = m_options.role;
  f.kind = fallback;
  f.message = what;
  if (m_pid <= 0) {
    f.message += " (the worker had already been stopped or reaped)";
    return f;
  }
  int status = 0;
  rusage ru{};
  // The channel closed: the process is exiting; give it a moment, then make sure.
  pid_t r = 0;
  for (int i = 0; i < 200 && r == 0; ++i) {
    r = ::wait4(m_pid, &status, WNOHANG, &ru);
    if (r == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (r == 0) {
    ::kill(-m_pid, SIGKILL);
    r = ::wait4(m_pid, &status, 0, &ru);
  }
  // No status to classify by (seen once on the H200 with a torch worker): say why.
  if (r < 0) f.message += " (wait4 on pid " + std::to_string(m_pid) + ": " + std::strerror(errno) + ")";
  ::kill(-m_pid, SIGKILL);  // anything it left behind in its group
  reap_group(m_pid);
  guardian::forget_group(m_pid);
  m_pid = -1;
  f.max_rss_kb = ru.ru_maxrss;
  f.log_tail = log_tail();
  const double limit_kb = static_cast<double>(m_options.memory_limit_bytes) / 1024.0;
  const bool near_memory_limit = m_options.memory_limit_bytes > 0 && ru.ru_maxrss >= 0.7 * limit_kb;
  const bool oom_in_log = f.log_tail.find("bad_alloc") != std::string::npos ||
                          f.log_tail.find("Cannot allocate memory") != std::string::npos;
  if (r > 0 && WIFSIGNALED(status)) {
    f.signal = WTERMSIG(status);
    if (fallback == worker_fault::timeout || fallback == worker_fault::forged_message) return f;
    const double cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec);
    if (f.signal == SIGSYS) {
      f.kind = worker_fault::sandbox_violation;
      f.message = "killed by the sandbox (SIGSYS): a forbidden system call";
    } else if (f.signal == SIGXCPU || (f.signal == SIGKILL && cpu_s >= m_options.cpu_limit_seconds)) {
      f.kind = worker_fault::timeout;
      f.message = "CPU time limit of " + std::to_string(static_cast<int>(m_options.cpu_limit_seconds)) + " s exceeded";
    } else if (f.signal == SIGXFSZ) {
      f.kind = worker_fault::resource_limit;
      f.message = "file size limit exceeded";
    } else if ((f.signal == SIGSEGV || f.signal == SIGBUS || f.signal == SIGABRT) &&
               (near_memory_limit || oom_in_log)) {
      f.kind = worker_fault::resource_limit;
      f.message = "out of memory: " + signal_name(f.signal) + " at " + std::to_string(ru.ru_maxrss / 1024) +
                  " MiB resident, limit " + std::to_string(m_options.memory_limit_bytes >> 20) + " MiB";
    } else {
      f.kind = worker_fault::crash;
      f.message = signal_name(f.signal);
    }
  } else if (r > 0 && WIFEXITED(status)) {
    f.exit_status = WEXITSTATUS(status);
    if (fallback == worker_fault::timeout || fallback == worker_fault::forged_message) return f;
    if (oom_in_log || (near_memory_limit && f.exit_status != 0)) {
      f.kind = worker_fault::resource_limit;
      f.message = "out of memory (exit status " + std::to_string(f.exit_status) + ")";
    } else {
      f.kind = worker_fault::early_exit;
      f.message = "the worker exited with status " + std::to_string(f.exit_status) + " while a request was pending";
    }
  }
  return f;
}

std::string worker_process::log_tail() const {
  std::ifstream in(m_log, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const auto size = static_cast<long long>(in.tellg());
  const long long want = 2000;  // bytes
  in.seekg(size > want ? size - want : 0);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return untrusted_text(s, static_cast<std::size_t>(want));
}

void worker_process::stop() {
  if (m_pid > 0) {
    m_channel.send(json{{"type", "bye"}});
    int status = 0;
    pid_t r = 0;
    const int polls = std::max(1, static_cast<int>(m_options.stop_grace_seconds / 0.002));  // every 2 ms
    for (int i = 0; i < polls && r == 0; ++i) {
      r = ::waitpid(m_pid, &status, WNOHANG);
      if (r == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    // Whatever of the worker's group outlived it (or is still beside it after the grace): killed
    // with the group and counted. The sandbox forbids leaving the group (setsid, setpgid), so the
    // group holds every descendant; those orphaned meanwhile are the controller's to reap (it is
    // their subreaper, process_census.hpp).
    m_left_behind = group_members(m_pid, m_pid);
    ::kill(-m_pid, SIGKILL);
    if (r == 0) ::waitpid(m_pid, &status, 0);
    for (int i = 0; i < 50 && !group_members(m_pid, -1).empty(); ++i) {
      reap_group(m_pid);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    reap_group(m_pid);
    guardian::forget_group(m_pid);
    m_pid = -1;
  }
  m_channel.close();
}

std::vector<denied_call> worker_process::denied_calls() const {
  return m_monitor_key > 0 ? syscall_monitor::denied(m_monitor_key) : std::vector<denied_call>{};
}

process_usage worker_process::usage(bool with_descendants) const {
  if (m_pid <= 0) return {};
  return read_process_usage(m_pid, with_descendants);
}

}  // namespace kjudge
