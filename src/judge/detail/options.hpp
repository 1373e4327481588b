// The check phase of an evaluation (judge/evaluate.hpp): every usage error said before anything
// runs, the options' strings parsed once (device and mode as enums), and the environment's
// switches read once into the record the later phases consult.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/dtype.hpp"
#include "judge/evaluate.hpp"
#include "judge/python_parties.hpp"
#include "problem/spec.hpp"

namespace kjudge::detail {

enum class device_kind { cpu, cuda };
enum class timing_mode { cold, warm };

// The names the options, the result document and the worker protocol use ("cpu", "cold").
std::string device_name(device_kind d);
std::string mode_name(timing_mode m);

// The environment's switches of an evaluation, read once by check_options. The experiment
// switches are recorded in the result (timing.experiment_switches).
struct judge_switches {
  // KJUDGE_TIMING_WORKER=shared: the candidate is timed in the worker that ran its checks, not in
  // a fresh one (an experiment measuring the difference; evaluation_parties.cpp).
  bool fresh_timing_worker = true;
  // KJUDGE_CANDIDATE_WARM_BATCH=0: a Python candidate's timing worker gets no warm_batch calls
  // (the asymmetric warm-up, an experiment).
  bool candidate_warm_batch = true;
  // KJUDGE_TIMING_PIN=0: the candidate's timing arena is not pinned (an experiment).
  bool pin_timing_arena = true;
  // KJUDGE_CUPTI_DETACH=each, on cuda: read by the cuda workers, which inherit it; recorded here.
  bool cupti_detach_each = false;
  // KJUDGE_KEEP_SCRATCH=1 keeps the workers' scratch directories and logs (debugging).
  bool keep_scratch = false;
  // KJUDGE_HOST_MEMORY_BYTES: the host memory the judge may plan with instead of MemAvailable
  // (a machine shared with other jobs; tests of the plan), bytes; 0: not set.
  std::uint64_t host_memory_bytes = 0;
  // --sanitize: compute-sanitizer ($KJUDGE_COMPUTE_SANITIZER, the toolkit's, or one on PATH);
  // empty without --sanitize.
  std::string compute_sanitizer;

  // The experiment switches that are set, as "NAME=value" strings.
  [[nodiscard]] nlohmann::json experiment_switches(device_kind device) const;
};

// The options once checked: what every later phase needs of the problem and the candidate.
struct checked_options {
  problem_spec problem;
  dtype variant = dtype::f32;
  device_kind device = device_kind::cpu;
  timing_mode mode = timing_mode::cold;
  python_problem pyp;
  python_setup py_setup;
  bool python_reference = false;  // the problem has a Python reference only (imported problems)
  bool python_candidate = false;  // a .py candidate (kjudge-worker-py)
  std::string source;             // the candidate's text
  std::string candidate_sha;
  tolerance tol;
  bool tf32 = false;  // TF32 permitted and not switched off: the reference's envelope has a TF32 run
  judge_switches switches;
};

// Throws usage_error for the first usage error found: an unknown problem, dtype, device or mode, a
// problem without a reference, Python missing where needed, --sanitize where it cannot run, an
// unreadable candidate, a malformed switch.
checked_options check_options(const eval_options& o);

// Host memory the evaluation may plan with: the switch, else MemAvailable; 0: unknown.
std::uint64_t mem_available_bytes(const judge_switches& s);

}  // namespace kjudge::detail
