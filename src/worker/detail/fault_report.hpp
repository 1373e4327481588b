// The worker's SIGSEGV reporter: a fault at an address the judge knows (a read-only input or its
// guard zone, an output the judge already released, a sealed code page of the timer's path) is
// named in the worker's log before the process dies of it, so that the controller gives the verdict
// the fault means (input_modified, out_of_bounds_write, deferred_work, timer_tamper) instead of a
// bare crash. The log lines are parsed by protocol/log_markers.hpp.
//
// The handler is installed once, before the sandbox (which then refuses the candidate a handler of
// its own for SIGSEGV and SIGBUS), with SA_RESETHAND: it reports and returns, the faulting
// instruction runs again under the default action, and the process dies of SIGSEGV without the
// handler making a system call the sandbox would refuse.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kjudge::fault_report {

// Installs the handler (idempotent). Call before the sandbox is applied.
void install();

// A read-only input mapping [base, end) whose data is [data, data_end); false when the table is
// full (the buffer then stays writable: its bytes are still compared after the call).
bool add_read_only(std::uintptr_t base, std::uintptr_t data, std::uintptr_t data_end, std::uintptr_t end,
                   const char* label);
// Forgets the read-only mapping at base; returns whether there was one.
bool remove_read_only(std::uintptr_t base);

// An output or workspace [base, end) the judge released: a write there is work left running.
void add_released(std::uintptr_t base, std::uintptr_t end, const char* label);
// A new mapping took [base, end): released regions overlapping it are forgotten.
void forget_released(std::uintptr_t base, std::uintptr_t end);

// A sealed region of the timer's code path (worker/detail/seal.hpp): a write there is an attempt to
// patch the judge's clock.
void add_sealed(std::uintptr_t base, std::uintptr_t end, const char* label);

}  // namespace kjudge::fault_report
