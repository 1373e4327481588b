// The controller's guardian: a small process forked when kjudge starts that outlives it by a
// moment. The controller tells it, over a pipe, which worker process groups and scratch
// directories exist; when the pipe closes (kjudge exits, crashes, or is killed with SIGKILL, which
// no handler sees), the guardian terminates every group still registered (SIGTERM, then SIGKILL
// after 5 s) and removes every scratch directory still registered, then exits. Compilers and a
// loop's proposer are registered too (core/subprocess.hpp). Together with the sandbox, which keeps every descendant
// of a worker in the worker's group, nothing a candidate started survives kjudge, and no scratch
// is left behind. The guardian ignores the terminal's signals (Ctrl-C reaches it too) so that it
// can do its work after the controller is gone.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <vector>

namespace kjudge::guardian {

// Forks the guardian (idempotent). Call early in main, while the process has one thread. With
// main's arguments, the guardian's command line reads "kjudge-guardian" (its own, in /proc): a
// `pkill -f 'kjudge loop ...'` aimed at kjudge does not take its guardian with it.
// Returns false when it could not be started (kjudge then runs without it).
bool start(int argc = 0, char** argv = nullptr);

// A worker's process group to kill if kjudge dies; forget() once it was stopped.
void watch_group(pid_t pgid);
void forget_group(pid_t pgid);

// A directory to remove if kjudge dies; forget_directory() once it was removed.
void watch_directory(const std::filesystem::path& dir);
void forget_directory(const std::filesystem::path& dir);

// The process groups watched now (this process's own record of what it told the guardian): what
// an interrupted kjudge terminates before it exits (core/interrupt.hpp).
std::vector<pid_t> watched_groups();

}  // namespace kjudge::guardian
