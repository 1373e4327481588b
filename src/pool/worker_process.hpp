// The controller's handle on one isolated worker process (DESIGN.md §1 "worker pool", §5
// sandbox): its own process group, rlimits, a clean environment, no inherited descriptors but
// its channel and arena, a wall-clock watchdog on every request, and the classification of its
// death into a verdict.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "pool/process_census.hpp"
#include "pool/syscall_monitor.hpp"
#include "protocol/channel.hpp"
#include "protocol/messages.hpp"

namespace kjudge {

struct worker_options {
  std::string backend = "cpu";
  std::filesystem::path library;  // the shared object to load
  // The worker program; empty: worker_executable(backend). kjudge-worker-py for Python parties,
  // whose `library` is then the party's description (docs/python.md).
  std::filesystem::path executable;
  worker_role role = worker_role::candidate;
  std::size_t arena_bytes = 1 << 20;
  // The arena's first bytes a device worker pins (page-locks) for its copies; the rest is copied
  // through the driver's staging. Default: all of it.
  std::size_t pin_bytes = static_cast<std::size_t>(-1);
  std::size_t memory_limit_bytes = 4ull << 30;    // RLIMIT_AS; 0: none (CUDA reserves huge VA)
  double cpu_limit_seconds = 900;                 // RLIMIT_CPU
  std::size_t file_size_limit_bytes = 64u << 20;  // RLIMIT_FSIZE
  bool sandbox = true;
  std::filesystem::path scratch_dir;  // the worker's only writable directory; its log goes here
  // > 0 (with the sandbox): the worker's scratch is a private tmpfs of this many bytes, so that
  // what it writes cannot fill the file system others share (pool/detail/private_mounts.hpp).
  std::size_t scratch_quota_bytes = 0;
  double start_timeout_seconds = 60;
  // A program the worker runs under (argv prefix), e.g. compute-sanitizer with its options
  // (--sanitize); empty: the worker is started directly.
  std::vector<std::string> launcher;
  // How long stop() waits for the worker to leave after "bye" before killing it, seconds (a
  // launcher such as compute-sanitizer writes its report as the worker exits).
  double stop_grace_seconds = 0.1;
};

enum class worker_fault {
  crash,              // killed by a signal (segfault, abort, ...) or exited mid-request
  timeout,            // the watchdog fired or RLIMIT_CPU was hit
  resource_limit,     // out of memory (RLIMIT_AS) or another rlimit
  sandbox_violation,  // killed by seccomp (SIGSYS)
  forged_message,     // a message on the channel failed the token/sequence/format checks
  early_exit,         // exited with a status while a request was pending
  worker_error,       // the worker answered with {type: error}
};
std::string_view worker_fault_name(worker_fault f);

struct worker_failure {
  worker_fault kind = worker_fault::crash;
  std::string message;     // human-readable, with the signal or status
  std::string error_kind;  // for worker_error: bad_input | runtime_error | resource_limit | internal
  int signal = 0;
  int exit_status = -1;
  long max_rss_kb = 0;
  std::string log_tail;             // last lines of the worker's stdout/stderr
  std::optional<worker_role> role;  // the worker's role (worker_options::role): whose failure it is
};

using worker_reply = std::variant<json, worker_failure>;

class worker_process {
 public:
  worker_process() = default;
  worker_process(const worker_process&) = delete;
  worker_process& operator=(const worker_process&) = delete;
  worker_process(worker_process&&) noexcept;
  worker_process& operator=(worker_process&&) noexcept;
  ~worker_process();

  // Starts the worker and performs the hello/ready handshake. On success the ready message is
  // available from ready().
  static std::variant<worker_process, worker_failure> start(const worker_options& o);
  // start() in two steps, so that several workers load at once: launch() forks the worker and
  // sends it its hello (it starts loading), await_ready() waits for its "ready". Both from the
  // thread that owns the workers: PR_SET_PDEATHSIG kills a worker when the thread that forked it
  // ends, not only the process.
  static std::variant<worker_process, worker_failure> launch(const worker_options& o);
  std::optional<worker_failure> await_ready();

  // Sends `request` and waits up to `timeout_s` for the reply (any type other than error).
  worker_reply request(const json& request, double timeout_s);
  bool send(const json& message);
  worker_reply receive(double timeout_s);

  [[nodiscard]] const json& ready() const { return m_ready; }
  // Measured by the controller when the worker became ready: `seconds` from launch (loading the
  // party: a shared object's constructors, a Python party's import), and the kernel's `cpu_s`,
  // `threads` and `descendants` of the worker then.
  [[nodiscard]] const json& load_report() const { return m_load; }
  [[nodiscard]] shared_arena& arena() { return m_arena; }
  [[nodiscard]] pid_t pid() const { return m_pid; }
  [[nodiscard]] const worker_options& options() const { return m_options; }
  [[nodiscard]] bool alive() const { return m_pid > 0; }

  // Polite shutdown (bye), then SIGKILL to the whole group; reaps the process and whatever of its
  // group it left behind (left_behind() lists those).
  void stop();
  // The kernel's figures for the worker (and its descendants) now (process_census.hpp).
  [[nodiscard]] process_usage usage(bool with_descendants = true) const;
  // The processes of the worker's group still alive when it was stopped (killed then).
  [[nodiscard]] const std::vector<group_member>& left_behind() const { return m_left_behind; }
  // The system calls its sandbox denied so far, in it or any process below it, where the worker
  // handed its seccomp listener to the controller (pool/syscall_monitor.hpp); empty otherwise.
  [[nodiscard]] std::vector<denied_call> denied_calls() const;

 private:
  worker_failure classify_death(worker_fault fallback, const std::string& what);
  std::string log_tail() const;

  worker_options m_options;
  pid_t m_pid = -1;
  channel m_channel;
  shared_arena m_arena;
  json m_ready;
  std::filesystem::path m_log;
  // The last request sent and when (KJUDGE_TRACE_REQUESTS).
  std::string m_sent_type = "hello";
  std::chrono::steady_clock::time_point m_sent_at = std::chrono::steady_clock::now();
  std::vector<group_member> m_left_behind;
  int m_monitor_key = 0;  // syscall_monitor's key for this worker's denied calls
  std::chrono::steady_clock::time_point m_launched_at = std::chrono::steady_clock::now();
  json m_load = nullptr;
};

// Path of the worker executable for a backend: next to the running kjudge binary
// (kjudge-worker, or kjudge-worker-cuda for cuda), overridable with KJUDGE_WORKER.
std::filesystem::path worker_executable(const std::string& backend);

}  // namespace kjudge
