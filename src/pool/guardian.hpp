// The controller's guardian: a small process forked when kjudge starts that outlives it by a
// moment. The controller tells it, over a pipe, which worker process groups and scratch
// directories exist; when the pipe closes (kjudge exits, crashes, or is killed with SIGKILL, which
// no handler sees), the guardian kills every group still registered and removes every scratch
// directory still registered, then exits. Together with the sandbox, which keeps every descendant
// of a worker in the worker's group, nothing a candidate started survives kjudge, and no scratch
// is left behind. The guardian ignores the terminal's signals (Ctrl-C reaches it too) so that it
// can do its work after the controller is gone.
#pragma once

#include <sys/types.h>

#include <filesystem>

namespace kjudge::guardian {

// Forks the guardian (idempotent). Call early in main, while the process has one thread.
// Returns false when it could not be started (kjudge then runs without it).
bool start();

// A worker's process group to kill if kjudge dies; forget() once it was stopped.
void watch_group(pid_t pgid);
void forget_group(pid_t pgid);

// A directory to remove if kjudge dies; forget_directory() once it was removed.
void watch_directory(const std::filesystem::path& dir);
void forget_directory(const std::filesystem::path& dir);

}  // namespace kjudge::guardian
