// Python parties of an evaluation (docs/python.md): PyTorch baselines (eager and torch.compile
// modes, TF32 on by default), Python references of imported problems, and Python candidates
// (KernelBench ModelNew files, suite kernels). Each runs in its own kjudge-worker-py process;
// the controller only writes the party's description (party.json) and talks the worker protocol.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "planner/planner.hpp"
#include "pool/worker_process.hpp"
#include "problem/spec.hpp"

namespace kjudge {

// Where Python parties come from: python3 whose environment has torch, and kjudge-worker-py.
// python: $KJUDGE_PYTHON, else $KJUDGE_VENV/bin/python3, else ~/.cache/kjudge/venv/bin/python3
// (scripts/install-torch.sh), else the interpreter kjudge-worker-py was built against.
struct python_setup {
  std::filesystem::path python;
  std::filesystem::path worker;
  std::string unavailable;  // why Python parties cannot run here; empty when they can
};
python_setup find_python_setup();

// Intra-op threads of torch in a Python party on `device` (0: torch's default).
int torch_threads(const std::string& device);

// How a problem is expressed in Python: the suite's reference.py (function `reference`), or an
// imported problem's module (kjudge-import.json beside problem.toml).
struct python_problem {
  std::string format;           // "suite" | "kernelbench" | "gpumode"; empty: none
  std::filesystem::path file;   // reference.py, or the imported problem's model.py
  std::string entry;            // "reference" | "Model"
  std::string candidate_entry;  // "kernel|ModelNew" | "ModelNew"
  nlohmann::json init_inputs = nlohmann::json::array();
  int seed = 42;
  nlohmann::json args;       // argument plan (kernelbench); null: tensors then kwargs
  nlohmann::json source;     // where it was imported from
  nlohmann::json structure;  // gpumode: {"inputs": "single"|"tuple", "outputs": ...}
  // gpumode imports since the problem's check is the rule: task.yml's tests and benchmarks with
  // every argument (seed included). Python candidates then get generate_input's inputs and are
  // judged by check_implementation (docs/python.md). Empty: kjudge's distributions and oracle.
  nlohmann::json test_args = nlohmann::json::array();
  nlohmann::json benchmark_args = nlohmann::json::array();
  // kernelbench --shape-scale: module constants changed for a hidden shape (null: none).
  nlohmann::json constants;
  [[nodiscard]] bool problem_check() const { return format == "gpumode" && !test_args.empty(); }
};
// The party kind of the glue (kjudge_host.py load) for a role: "function" (suite references),
// "auto" (suite candidates: kernel(...) or ModelNew), "module" (KernelBench), "gpumode".
std::string python_party_kind(const python_problem& pp, const std::string& role);
// Throws usage_error for a malformed kjudge-import.json.
python_problem python_problem_of(const problem_spec& p);

bool is_python_candidate(const std::filesystem::path& candidate);
// The candidate is the problem's own Python file (A/A validation): it runs the reference's entry
// (Model, ref_kernel) in the candidate's role.
bool python_candidate_is_reference(const std::filesystem::path& candidate, const python_problem& pp);

// torch baseline kinds: torch:eager, torch:compile:default,
// torch:compile:max-autotune-no-cudagraphs, torch:compile:max-autotune.
const std::vector<std::string>& torch_baseline_kinds();
// The default set for a device: all four on cuda; torch:eager on cpu (compiling costs tens of
// seconds per mode there; --torch or KJUDGE_TORCH_BASELINES asks for the compile modes).
std::vector<std::string> default_torch_baselines(const std::string& device);
// "torch:compile:MODE" -> MODE; "torch:eager" -> nullopt. Throws usage_error for another name.
std::optional<std::string> torch_compile_mode(const std::string& kind);

// The description of one party (party.json).
nlohmann::json python_party(const problem_spec& p, const python_problem& pp, const std::string& role,
                            const std::filesystem::path& file, const std::string& kind, const std::string& entry,
                            const std::optional<std::string>& compile, bool tf32, const std::string& device,
                            dtype variant, const python_setup& setup);

// Writes party.json into `config_dir` and points the worker options at kjudge-worker-py.
// Python workers get `extra_memory_bytes` more address space: torch alone maps ~3 GiB.
void configure_python_worker(worker_options& wo, const nlohmann::json& party, const std::filesystem::path& config_dir);
inline constexpr std::size_t python_extra_address_space = 8ull << 30;

// A build result for a Python file: nothing is compiled; `library` is the file.
struct build_result;
build_result python_build_result(const std::filesystem::path& file);

struct call_spec;
// Untimed warm_batch calls per bench call before timing, for every Python party: a baseline's
// (python_warmup) and a Python candidate's timing worker (judge/detail/evaluation_timing.cpp) alike, so that every
// timed process has the same history (docs/notebook/2026-12-04-symmetric-warm-up.md).
inline constexpr int python_warm_calls_per_case = 2;
// Before timing: python_warm_calls_per_case untimed calls of a Python baseline on each bench
// call, so that torch.compile compiles (and autotunes) outside the timed rounds; returns what it
// cost per call and the compile counters. Throws internal_error when the baseline fails (ours,
// not a verdict).
nlohmann::json python_warmup(worker_process& w, const std::string& name, const std::vector<call_spec>& calls,
                             double timeout_s);
// The party's compile counters (frames compiled, graphs, graph breaks, recompiles); when the
// worker does not answer, {"worker_failure": why, "log_tail": its log's end}.
nlohmann::json python_stats(worker_process& w, double timeout_s);

// GPU MODE problems judged by their own check: the distribution of a case's calls,
// "generate_input {ARGS}" — a public case's test arguments (its seed included), a bench case's
// benchmark (or test) arguments without the seed, a hidden case's drawn shape over the non-shape
// arguments of one of the tests; where ARGS has no seed, each call's seed is the judge's.
std::string generate_input_distribution(const python_problem& pp, const planned_case& c);

// Runs the glue's inspector (kjudge_host.main_inspect) in `kjudge-worker-py --inspect`, a separate
// process: the controller never runs problem code. Returns {"ok": true, "result"} or
// {"ok": false, "error"}.
nlohmann::json python_inspect(const python_setup& ps, const nlohmann::json& request, double timeout);

// --shape-scale for KernelBench imports (docs/python.md): hidden cases at other sizes. The
// inspector (a kjudge-worker-py process) scales the problem file's integer constants, keeps those
// whose change is a pure size change the reference runs with, and returns the variants ("scaled",
// "odd"); each gets `per_variant` hidden cases with the problem's hidden distributions and seeds
// from the run's secret. `report` goes into the result (variants kept, constants dropped and why).
struct shape_variant {
  std::string label;
  python_problem pyp;  // init inputs and constants of the variant
  std::vector<planned_case> cases;
};
struct shape_scale_plan {
  std::vector<shape_variant> variants;
  nlohmann::json report;
};
shape_scale_plan plan_shape_scale(const problem_spec& p, const python_problem& pp, const planned_case& model,
                                  const std::vector<std::string>& distributions, double scale, std::uint64_t secret,
                                  int per_variant);

}  // namespace kjudge
