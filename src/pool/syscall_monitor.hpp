// The controller's side of the seccomp listeners (sandbox/confine.hpp syscall_rules::listener): a
// worker that may start processes (a Python party runs compilers) hands the controller the
// listener of its filter; every call the filter denies, in the worker or any process below it,
// reaches this monitor's thread, which refuses it (EPERM) and records it. Without it, a denied call
// in a child killed only that child: a candidate's import forked a process that called setsid and
// died silently, its parent went on unharmed, and nothing in the verdict said it had tried
// (tests/redteam/python/py_fork_daemon.py). A recorded attempt is evidence: rule sandbox_violation.
//
// Every worker's filter also notifies the files it opens for writing (open, openat, openat2, creat,
// truncate). The monitor lets them go on (landlock decides, as before) unless the path names
// another process's /proc entry (/proc/<pid>/fd/N of the controller, say: a write into the
// judge's open files): that one is refused (EACCES) and recorded. The path is read from the
// caller's memory after the call was made, so a candidate that rewrites it from another thread can
// dodge the record but not the refusal, which landlock makes on the path the kernel opens.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace kjudge {

struct denied_call {
  pid_t pid = 0;          // the process that made the call
  std::string syscall;    // its name (or number)
  double at_seconds = 0;  // since the monitor started
  std::string path;       // for a file opened for writing: the path it named, resolved lexically
};

namespace syscall_monitor {

// Takes ownership of `handoff`, the controller's end of a worker's hand-off socket (the worker's
// descriptor 5). When the worker sends its listener over it (sandbox/confine.hpp hand_over_listener, SCM_RIGHTS), the
// monitor's thread (started on first use) takes it, acknowledges with one byte, so that the worker
// runs no code of the party's before the listener is watched, and watches it until every process
// using the filter has exited. A worker without a listener just closes its end. Returns the key
// under which the worker's denied calls are recorded.
int expect(int handoff);

// The calls denied so far under `key` (a copy; the monitor keeps recording).
std::vector<denied_call> denied(int key);

}  // namespace syscall_monitor

}  // namespace kjudge
