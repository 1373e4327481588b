// The sandbox's primitives (DESIGN.md §5), without a policy: capabilities, landlock and seccomp,
// each applied to the calling process (and, for seccomp, to all its threads) and inherited across
// fork and exec. Two policies use them: the worker's (worker/sandbox.hpp, applied in the worker
// before any candidate code runs) and the build's (kjudge-confine, which runs the compiler). Each
// returns what it applied as JSON; where the kernel refuses a layer it says so rather than
// pretending.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kjudge::sandbox {

// Drops every capability (the bounding set too). Without CAP_SYS_PTRACE a process cannot read a
// non-dumpable process's /proc/<pid>/mem or environ even as the same user, and without
// CAP_DAC_OVERRIDE root obeys file modes.
nlohmann::json drop_capabilities();

// Landlock: everything outside these paths is refused (reads included); sets no-new-privs.
struct fs_rules {
  std::vector<std::string> read_dirs;    // read and execute, recursively
  std::vector<std::string> read_files;   // read (and execute) single files
  std::vector<std::string> write_dirs;   // every right, recursively
  std::vector<std::string> write_files;  // read and write single files (device nodes)
  // From landlock ABI 6: signals and abstract unix sockets only within the sandbox's own domain.
  bool scope_signals_and_sockets = true;
};
nlohmann::json restrict_filesystem(const fs_rules& rules);

// Seccomp, on every thread (TSYNC): no network, no access to other processes (ptrace,
// process_vm_*, signals, limits, priorities, memory placement), no ways around the filter
// (io_uring, bpf, perf), no state shared with other processes that outlives this one (keyrings,
// System V IPC, message queues), no fault handlers of its own (SIGSEGV/SIGBUS handlers,
// userfaultfd), no sealing, no leaving the process group.
struct syscall_rules {
  bool allow_subprocesses = false;  // fork/vfork/execve/clone of processes (compilers)
  pid_t self = 0;                   // the only process signals may go to (0: getpid())
  // Where given (and the kernel and libseccomp support it), a denied call is not fatal: it is
  // sent to a seccomp listener, whose descriptor is stored here, for a supervisor to refuse and
  // record (pool/syscall_monitor.hpp). A process that may fork needs it: a child killed by the
  // filter dies silently, its parent unharmed, so an attempt made from a child left no trace.
  int* listener = nullptr;
  // With a listener: whether a denied call still kills the process (a worker that cannot fork:
  // its death is evidence enough) while writes are notified, or is refused and reported.
  bool fatal_denials = false;
};
nlohmann::json restrict_syscalls(const syscall_rules& rules);

// Hands a seccomp listener to the controller (pool/syscall_monitor.hpp) over the socket `handoff`
// (SCM_RIGHTS) and waits at most 30 s for its acknowledgement, so that no call the filter denies is
// made before the controller watches; closes both descriptors. Returns whether it was taken.
bool hand_over_listener(int handoff, int listener);

}  // namespace kjudge::sandbox
