#include "worker/sandbox.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "sandbox/confine.hpp"
#include "worker/detail/fault_report.hpp"
#include "worker/detail/seal.hpp"

namespace kjudge {

namespace {

using json = nlohmann::json;

constexpr int handoff_fd = 5;  // pool/worker_process.cpp: the seccomp listener's way to the controller

// The worker's filesystem: read-only system locations a process (and a GPU driver) needs, the
// candidate's own build directory and what the party asks for (a Python party's interpreter,
// torch, its own directory); writable only the scratch directory. Not the home directory, the
// store, the repository or other candidates' build directories.
sandbox::fs_rules worker_filesystem(std::string_view backend, const sandbox_options& o) {
  sandbox::fs_rules r;
  r.read_dirs = {"/usr", "/lib", "/lib64", "/lib32", "/etc", "/proc", "/sys", "/opt", "/bin", "/sbin"};
  // /dev: on cpu only the character devices a program needs, read-write. Not the whole of /dev:
  // /dev/shm and /dev/mqueue are shared between processes, so a candidate could leave data there
  // for a later evaluation or another candidate. GPU drivers need their device nodes (and the
  // CUDA runtime /dev/shm), so the cuda backend keeps /dev read-write; its /dev/shm is the
  // worker's own tmpfs (pool/detail/private_mounts.hpp).
  if (backend == "cpu")
    r.write_files = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};
  else
    r.write_dirs.emplace_back("/dev");
  if (const char* lib_dir = std::getenv("KJUDGE_LIBRARY_DIR")) r.read_dirs.emplace_back(lib_dir);
  if (const char* extra = std::getenv("KJUDGE_SANDBOX_READ")) r.read_dirs.emplace_back(extra);
  for (const auto& p : o.extra_read) r.read_dirs.push_back(p);
  if (const char* scratch = std::getenv("KJUDGE_SCRATCH")) r.write_dirs.emplace_back(scratch);
  return r;
}

}  // namespace

json apply_sandbox(std::string_view backend, const sandbox_options& o) {
  json out;
  out["enabled"] = true;
  fault_report::install();
  // Before anything that could load candidate code; the seccomp filter below refuses mseal after.
  out["sealed"] = seal_worker_code();
  // What the controller's private mounts applied between fork and exec (pool/detail/
  // private_mounts.hpp).
  if (const char* ns = std::getenv("KJUDGE_NAMESPACES")) {
    std::string v = ns;
    while (!v.empty() && v.back() == ' ') v.pop_back();
    out["namespaces"] = v;
  }
  out["capabilities"] = sandbox::drop_capabilities();
  // Non-dumpable: /proc/<worker>/mem, environ and fd/ are closed to other processes of the user
  // (a candidate reading the reference worker's arena through /proc/<pid>/fd/4, say), on kernels
  // where landlock's ptrace scoping is missing too.
  out["dumpable"] = ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 ? false : true;
  out["landlock"] = sandbox::restrict_filesystem(worker_filesystem(backend, o));
  sandbox::syscall_rules sr;
  sr.allow_subprocesses = o.allow_subprocesses;
  // A worker that may start processes reports what its filter denies to the controller instead
  // of dying of it (pool/syscall_monitor.hpp): a child killed by the filter would leave no trace.
  // Every worker hands it over: the files it opens for writing are checked there too (an attempt
  // outside its writable places is evidence); a worker that cannot fork keeps fatal denials.
  int listener = -1;
  sr.listener = &listener;
  sr.fatal_denials = !o.allow_subprocesses;
  out["seccomp"] = sandbox::restrict_syscalls(sr);
  if (listener >= 0)
    out["seccomp"]["listener_taken"] = sandbox::hand_over_listener(handoff_fd, listener);
  else
    ::close(handoff_fd);
  if (o.allow_subprocesses) out["subprocesses"] = "allowed (compilers); children inherit landlock and seccomp";
  return out;
}

}  // namespace kjudge
