// The worker's sandbox (DESIGN.md §5), applied before the first byte of the party's code runs (a
// shared object is mapped, a Python party's files are imported, only after it): the worker's code
// sealed (detail/seal.hpp), its fault reporter installed, no capabilities, no new privileges,
// non-dumpable, landlock (read-only filesystem outside the scratch directory, no access to the
// store or the controller's files), seccomp (sandbox/confine.hpp). The private mounts around it
// are set up by the controller before the worker starts (pool/detail/private_mounts.hpp).
// Returns what was actually applied; where the kernel refuses a layer, it says so rather than
// pretending (the controller records this object in the result's env).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kjudge {

// Relaxations a hosted program asks for (worker.hpp hosted_program); none for shared objects.
struct sandbox_options {
  // fork/vfork/execve/clone of processes stay allowed: kjudge-worker-py runs compilers
  // (torch.compile's inductor, Triton, load_inline). Children inherit landlock and seccomp (no
  // sockets, no writes outside scratch) and stay in the worker's process group, so the
  // watchdog's kill reaches them.
  bool allow_subprocesses = false;
  std::vector<std::string> extra_read;  // read-only paths beyond the system directories
};

nlohmann::json apply_sandbox(std::string_view backend, const sandbox_options& o = {});

}  // namespace kjudge
