// The worker's sandbox (DESIGN.md §5), applied after the candidate is loaded and before its first
// call: no capabilities, no new privileges, landlock (read-only filesystem outside the scratch
// directory, no access to the store or the controller's files), seccomp (no sockets, no
// ptrace/process_vm_*, no new processes or exec, no signals to other processes).
// Returns what was actually applied; where the kernel refuses a layer, it says so rather than
// pretending (the controller records this object in the result's env).
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

namespace kjudge {

nlohmann::json apply_sandbox(std::string_view backend);

}  // namespace kjudge
