#include "judge/detail/options.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "problem/registry.hpp"

namespace kjudge::detail {

namespace {

bool env_is(const char* name, std::string_view value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string_view(v) == value;
}

std::uint64_t host_memory_switch() {
  const char* v = std::getenv("KJUDGE_HOST_MEMORY_BYTES");
  if (v == nullptr || *v == 0) return 0;
  char* end = nullptr;
  const unsigned long long b = std::strtoull(v, &end, 10);
  if (end == v || *end != 0 || b == 0)
    throw usage_error(std::string("KJUDGE_HOST_MEMORY_BYTES=") + v + ": expected a positive number of bytes");
  return b;
}

// compute-sanitizer: $KJUDGE_COMPUTE_SANITIZER, the toolkit's, or one on PATH; empty when there is
// none.
std::string compute_sanitizer_path() {
  if (const char* e = std::getenv("KJUDGE_COMPUTE_SANITIZER"); e != nullptr && *e != 0) return e;
  std::error_code ec;
  for (const char* p : {"/usr/local/cuda/bin/compute-sanitizer", "/usr/local/cuda/compute-sanitizer/compute-sanitizer"})
    if (std::filesystem::exists(p, ec)) return p;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string d;
    while (std::getline(ss, d, ':'))
      if (!d.empty() && std::filesystem::exists(std::filesystem::path(d) / "compute-sanitizer", ec))
        return (std::filesystem::path(d) / "compute-sanitizer").string();
  }
  return "";
}

dtype check_dtype(const eval_options& o, const problem_spec& p) {
  const std::string want = o.dtype.value_or(p.dtypes.empty() ? "f32" : p.dtypes.front());
  const auto t = parse_dtype(want);
  if (!t || std::find(p.dtypes.begin(), p.dtypes.end(), std::string(dtype_name(*t))) == p.dtypes.end()) {
    std::string known;
    for (const auto& d : p.dtypes) known += (known.empty() ? "" : ", ") + d;
    throw usage_error("--dtype " + want + ": problem " + p.name + " supports " + known);
  }
  return *t;
}

device_kind check_device(const std::string& d) {
  if (d == "cpu") return device_kind::cpu;
  if (d == "cuda") return device_kind::cuda;
  throw usage_error("--device " + d + ": expected cpu or cuda");
}

timing_mode check_mode(const std::string& m) {
  if (m == "cold") return timing_mode::cold;
  if (m == "warm") return timing_mode::warm;
  throw usage_error("--mode " + m + ": expected cold or warm");
}

// Python (docs/python.md): imported problems have a Python reference only; .py candidates run in
// kjudge-worker-py; problems with a Python form get PyTorch baselines.
void check_python(const eval_options& o, checked_options& c) {
  const problem_spec& p = c.problem;
  c.pyp = python_problem_of(p);
  c.python_reference = !p.reference_cpp && !c.pyp.format.empty();
  c.python_candidate = is_python_candidate(o.candidate);
  if (!p.reference_cpp && !c.python_reference)
    throw usage_error(p.file.string() + ": the problem declares no C++ reference ([references] cpp)");
  c.py_setup = find_python_setup();
  if ((c.python_reference || c.python_candidate) && !c.py_setup.unavailable.empty())
    throw usage_error("this evaluation needs Python: " + c.py_setup.unavailable);
  if (c.python_candidate && c.pyp.format.empty())
    throw usage_error(p.name + " has no Python form (reference.py) for a Python candidate");
}

// --sanitize runs last (after the timed rounds): what would stop it is said before anything runs.
void check_sanitize(const eval_options& o, checked_options& c) {
  if (o.sanitize.empty()) return;
  if (c.device != device_kind::cuda) throw usage_error("--sanitize " + o.sanitize + ": needs --device cuda");
  if (c.python_candidate) throw usage_error("--sanitize: CUDA candidates (.cu) only");
  c.switches.compute_sanitizer = compute_sanitizer_path();
  if (c.switches.compute_sanitizer.empty())
    throw usage_error("--sanitize: compute-sanitizer not found ($KJUDGE_COMPUTE_SANITIZER, /usr/local/cuda/bin, PATH)");
}

}  // namespace

std::string device_name(device_kind d) {
  return d == device_kind::cuda ? "cuda" : "cpu";
}

std::string mode_name(timing_mode m) {
  return m == timing_mode::warm ? "warm" : "cold";
}

nlohmann::json judge_switches::experiment_switches(device_kind device) const {
  nlohmann::json out = nlohmann::json::array();
  if (!candidate_warm_batch) out.push_back("KJUDGE_CANDIDATE_WARM_BATCH=0");
  if (!pin_timing_arena) out.push_back("KJUDGE_TIMING_PIN=0");
  if (!fresh_timing_worker) out.push_back("KJUDGE_TIMING_WORKER=shared");
  if (device == device_kind::cuda && cupti_detach_each) out.push_back("KJUDGE_CUPTI_DETACH=each");
  return out;
}

checked_options check_options(const eval_options& o) {
  checked_options c;
  c.problem = load_problem(o.problem);
  const problem_spec& p = c.problem;
  c.variant = check_dtype(o, p);
  c.device = check_device(o.device);
  c.mode = check_mode(o.mode);
  check_python(o, c);
  check_sanitize(o, c);
  c.source = read_file(o.candidate);
  c.candidate_sha = sha256_hex(c.source);
  c.tol = tolerance_for(p, c.variant, o.tf32 && p.tf32_allowed);
  if (o.rtol_override) c.tol.rtol = *o.rtol_override;
  if (o.atol_override) c.tol.atol = *o.atol_override;
  c.tf32 = o.tf32 && p.tf32_allowed;
  judge_switches& s = c.switches;
  s.fresh_timing_worker = !env_is("KJUDGE_TIMING_WORKER", "shared");
  s.candidate_warm_batch = !env_is("KJUDGE_CANDIDATE_WARM_BATCH", "0");
  s.pin_timing_arena = !env_is("KJUDGE_TIMING_PIN", "0");
  s.cupti_detach_each = env_is("KJUDGE_CUPTI_DETACH", "each");
  s.keep_scratch = env_is("KJUDGE_KEEP_SCRATCH", "1");
  s.host_memory_bytes = host_memory_switch();
  return c;
}

std::uint64_t mem_available_bytes(const judge_switches& s) {
  if (s.host_memory_bytes != 0) return s.host_memory_bytes;
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

}  // namespace kjudge::detail
