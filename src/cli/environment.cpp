#include "cli/environment.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace kjudge::cli {

namespace {

enum class env_role {
  setting,     // a user's setting: where things are, which baselines, how much memory
  experiment,  // an experiment switch, off in a normal run; recorded in timing.experiment_switches
  internal,    // set by kjudge for its worker processes; read there
  proposer,    // set by kjudge loop for a proposer command
};

struct env_var {
  std::string_view name;
  env_role role;
  std::string_view what;
};

constexpr env_var k_vars[] = {
    {"KJUDGE_DB", env_role::setting,
     "the result store: an SQLite file (default ~/.local/share/kjudge/kjudge.db) or a postgresql:// URL"},
    {"KJUDGE_CACHE", env_role::setting, "build cache, ceilings, scratch (default ~/.cache/kjudge)"},
    {"KJUDGE_PROBLEMS", env_role::setting, "the suite's problems directory (default: the source tree's problems/)"},
    {"KJUDGE_IMPORTED", env_role::setting,
     "imported problems (default ~/.local/share/kjudge/problems, beside the store)"},
    {"KJUDGE_TORCH_BASELINES", env_role::setting, "the torch baselines when --torch is not given (e.g. torch:eager)"},
    {"KJUDGE_TORCH_THREADS", env_role::setting, "torch's intra-op threads in a Python party (cpu default: 1)"},
    {"KJUDGE_PYTHON", env_role::setting, "the python3 (with torch) that Python workers and imports use"},
    {"KJUDGE_VENV", env_role::setting,
     "a virtual environment whose bin/python3 is used (default ~/.cache/kjudge/venv)"},
    {"KJUDGE_NVCC", env_role::setting,
     "the nvcc that builds CUDA candidates (default: /usr/local/cuda/bin/nvcc, PATH)"},
    {"KJUDGE_COMPUTE_SANITIZER", env_role::setting, "the compute-sanitizer that --sanitize runs"},
    {"KJUDGE_WORKER", env_role::setting, "the cpu worker binary (default: beside kjudge)"},
    {"KJUDGE_WORKER_CUDA", env_role::setting, "the cuda worker binary (default: beside kjudge)"},
    {"KJUDGE_WORKER_PY", env_role::setting, "the Python worker binary (default: beside kjudge)"},
    {"KJUDGE_HOST_MEMORY_BYTES", env_role::setting,
     "host memory the judge may plan with, bytes (default: MemAvailable)"},
    {"KJUDGE_SANDBOX_READ", env_role::setting, "one more path the worker sandbox may read"},
    {"KJUDGE_CONFINE", env_role::setting, "the build's sandbox program (default: kjudge-confine beside kjudge)"},
    {"KJUDGE_CONFINE_WITHOUT_LANDLOCK", env_role::setting,
     "=1: compile even where the kernel has no landlock (the compiler then reads what the user can)"},
    {"KJUDGE_KEEP_SCRATCH", env_role::setting, "=1: keep each worker's scratch directory and log"},
    {"KJUDGE_TRACE_REQUESTS", env_role::setting, "append every request to a worker, with its wait, to this file"},
    {"KJUDGE_INSPECT_DEVICE", env_role::setting, "=cpu: `kjudge import` inspects KernelBench files on the host"},
    {"KJUDGE_TIMING_WORKER", env_role::experiment, "=shared: time the candidate in its correctness checks' worker"},
    {"KJUDGE_TIMING_PIN", env_role::experiment, "=0: leave the candidate's timing arena unpinned"},
    {"KJUDGE_CANDIDATE_WARM_BATCH", env_role::experiment,
     "=0: no baseline-like warm-up for a Python candidate's timing worker"},
    {"KJUDGE_CUPTI_DETACH", env_role::experiment, "=each: detach CUPTI after every traced call"},
    {"KJUDGE_SCRATCH", env_role::internal, "a worker's writable scratch directory"},
    {"KJUDGE_LIBRARY_DIR", env_role::internal, "the directory of a worker's candidate library"},
    {"KJUDGE_NAMESPACES", env_role::internal, "what a worker's private mounts applied (reported in env.sandbox)"},
    {"KJUDGE_CONTEXT", env_role::proposer, "the iteration's context, JSON"},
    {"KJUDGE_BRIEF", env_role::proposer, "the iteration's brief, Markdown"},
    {"KJUDGE_OUTPUT_DIR", env_role::proposer, "where the proposer writes its candidate files"},
    {"KJUDGE_WORKDIR", env_role::proposer, "the loop's working directory"},
    {"KJUDGE_ITERATION", env_role::proposer, "the iteration number"},
    {"KJUDGE_PROBLEM", env_role::proposer, "the problem's name"},
    {"KJUDGE_DEVICE", env_role::proposer, "cpu or cuda"},
};

}  // namespace

std::string environment_help() {
  const std::array<std::pair<env_role, std::string_view>, 4> groups{{
      {env_role::setting, "Environment:"},
      {env_role::experiment,
       "Experiment switches (off in a normal run; recorded in the result's timing.experiment_switches):"},
      {env_role::internal, "Set by kjudge for its workers:"},
      {env_role::proposer, "Set by kjudge loop for the proposer command (also KJUDGE_PROTOCOL=1; docs/proposer.md):"},
  }};
  std::string out;
  for (const auto& [role, title] : groups) {
    out += out.empty() ? "" : "\n";
    out += title;
    out += '\n';
    for (const auto& v : k_vars) {
      if (v.role != role) continue;
      std::string line = "  " + std::string(v.name);
      line.resize(std::max<std::size_t>(line.size() + 1, 31), ' ');
      out += line + std::string(v.what) + '\n';
    }
  }
  return out;
}

}  // namespace kjudge::cli
