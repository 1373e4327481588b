// What kjudge does when it is interrupted (Ctrl-C, SIGTERM, a lost terminal): a thread of its own
// takes the signal (every other thread has it blocked), runs the hooks that record the
// interruption where it matters (the loop's journal: "stopped", reason "interrupted") and exits
// at once with 128 + the signal, so that nothing goes on working, or records a verdict, after it.
// The guardian (core/guardian.hpp) then terminates every process group kjudge started (workers,
// a proposer, compilers: SIGTERM, SIGKILL after its grace period) and removes the scratch
// directories. A run interrupted so is resumable as after kill -9.
#pragma once

#include <functional>

namespace kjudge::interrupt {

// Call first in main, while the process has one thread: blocks SIGINT, SIGTERM and SIGHUP in
// every thread started afterwards and starts the thread that takes them.
void install();

// Runs `hook(signal)` on the interrupt thread before kjudge exits. Hooks run in the order added;
// one that throws is skipped.
int add_hook(std::function<void(int)> hook);
void remove_hook(int id);

// In a child between fork and exec: the signals blocked by install() unblocked again, so that the
// program started there can be terminated.
void unblock_in_child();

}  // namespace kjudge::interrupt
