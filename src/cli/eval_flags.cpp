#include "cli/eval_flags.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "cli/python_commands.hpp"
#include "core/error.hpp"
#include "pool/worker_process.hpp"

namespace kjudge::cli {

void add_eval_flags(CLI::App* c, eval_flags& f) {
  c->add_option("--device", f.device, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  c->add_option("--dtype", f.dtype, "dtype variant (default: the problem's first, e.g. f32)");
  c->add_option("--mode", f.mode, "timing mode: cold (cache flushed before every sample) or warm")
      ->check(CLI::IsMember({"cold", "warm"}));
  c->add_option("--budget", f.budget, "timing budget in seconds (rounds stop at the CI target or this cap)");
  c->add_option("--rounds", f.rounds,
                "exactly N timing rounds, whatever the CI and the budget (default: at least 10, then until the CI "
                "target or the budget); for comparing runs at equal statistical work")
      ->check(CLI::Range(1, 1000));
  c->add_flag("--no-timing", f.no_timing, "check correctness only");
  c->add_option(
      "--db", f.db_path,
      "result store: SQLite file or postgresql:// URL (default: $KJUDGE_DB or ~/.local/share/kjudge/kjudge.db)");
  c->add_flag("--no-store", f.no_store, "do not record the result in the store");
  c->add_flag("--no-sandbox", f.no_sandbox, "run the worker without seccomp/landlock (debugging only)");
  c->add_flag("--no-tf32", f.no_tf32, "forbid TF32 tolerance where the problem would permit it");
  c->add_flag("--no-compile-cache", f.no_compile_cache,
              "torch baselines compile from nothing in every worker: no stored torch.compile caches are used or "
              "kept (KJUDGE_CACHE/torch-compile)");
  c->add_flag("--host-reference", f.host_reference,
              "cuda, imported (Python) problems: run the reference in torch on the host CPU instead of on the device");
  c->add_option("--sanitize", f.sanitize,
                "cuda: also run the candidate's first public and hidden cases under compute-sanitizer with TOOL; "
                "any error it reports rejects the candidate (rule sanitizer)")
      ->check(CLI::IsMember({"memcheck", "racecheck", "initcheck", "synccheck"}));
  c->add_option("--hidden", f.hidden,
                "hidden cases (default: the problem's); never fewer than the extreme shapes plus one regular "
                "shape per declared distribution");
  c->add_option("--seed", f.seed, "fix the secret seed (hex) to reproduce a run; default: fresh from the OS");
  c->add_option("--torch", f.torch,
                "PyTorch baselines: comma-separated torch:eager, torch:compile:default, "
                "torch:compile:max-autotune-no-cudagraphs, torch:compile:max-autotune, or none "
                "(default: eager on cpu, all on cuda; $KJUDGE_TORCH_BASELINES)");
  c->add_option(
      "--shape-scale", f.shape_scale,
      "KernelBench imports: also judge hidden cases with the file's size constants (batch_size, dim, ...) "
      "scaled by F (e.g. 0.5 or 2) and scaled to odd sizes; a constant is scaled only where the reference "
      "runs with it and only sizes change (the others are dropped with a note in the result). Off by default");
  c->add_option("--call-timeout", f.call_timeout, "watchdog for one call of the candidate, seconds");
  c->add_option("--rechecks", f.rechecks,
                "timed calls rechecked per case and round (default: 2 on cpu, 1 on cuda; 0 only to measure what "
                "the rechecks cost: a candidate that changes its output when timed is then not caught)")
      ->check(CLI::Range(0, 100));
  c->add_option("--worker-epochs", f.worker_epochs,
                "time the rounds in N successive sets of fresh worker processes (the rounds split evenly); the CI then "
                "also covers what a process fixes for its lifetime, which one set's rounds cannot show (default: 3 on "
                "cuda, at most one per round; 1 on cpu)")
      ->check(CLI::Range(1, 100));
  c->add_flag("--no-trace", f.no_trace,
              "cuda: no kernel trace of checked calls (only to measure what the trace costs: work on other streams, "
              "after the stop event, library kernels and peak memory are then not checked)");
  c->add_option("--memory-limit", f.memory_limit_mib, "address-space limit of a cpu worker, MiB");
  c->add_option("--scratch-limit", f.scratch_limit_mib,
                "size of the private tmpfs a candidate's worker writes into (its HOME and TMPDIR), MiB; 0: the real "
                "scratch directory, without a total bound")
      ->check(CLI::Range(0.0, 1048576.0));
  c->add_flag("-q,--quiet", f.quiet, "no progress display");
}

// --device cuda on a machine without an NVIDIA GPU is the user's mistake, said before anything
// runs (exit 2), not a cuda worker's "insufficient driver" (exit 3) seconds later.
void require_gpu_for(const std::string& device) {
  if (device != "cuda") return;
  std::error_code ec;
  bool node = false;
  for (const auto& e : std::filesystem::directory_iterator("/dev", ec)) {
    const std::string n = e.path().filename().string();
    node = node || (n.rfind("nvidia", 0) == 0 && n.size() > 6 && std::isdigit(static_cast<unsigned char>(n[6])));
  }
  if (!node && !std::filesystem::exists("/proc/driver/nvidia/version", ec))
    throw usage_error(
        "--device cuda: this machine has no NVIDIA GPU (no /dev/nvidia<N> device, no driver in "
        "/proc/driver/nvidia); judge with --device cpu, or run kjudge on a machine with a GPU");
  if (!std::filesystem::exists(worker_executable("cuda"), ec))
    throw usage_error("--device cuda: this kjudge was built without the CUDA backend (" +
                      worker_executable("cuda").string() + " is missing; build where nvcc is found, KJUDGE_CUDA=ON)");
}

// An output path that cannot be written is refused before the evaluation, not after it (a
// --json to an unwritable path failed only once the evaluation was over): its directory is made
// and the file opened for writing now (a file made only for this test is removed again).
void require_writable(const std::string& option, const std::string& path) {
  if (path.empty() || path == "-") return;
  namespace fs = std::filesystem;
  const fs::path p(path);
  std::error_code ec;
  if (fs::is_directory(p, ec)) throw usage_error(option + " " + path + ": is a directory; expected a file to write");
  if (p.has_parent_path() && !fs::create_directories(p.parent_path(), ec) && ec)
    throw usage_error(option + " " + path + ": cannot create its directory: " + ec.message());
  int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  const bool created = fd >= 0;
  if (!created && errno == EEXIST) fd = ::open(p.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) throw usage_error(option + " " + path + ": cannot be written (" + std::strerror(errno) + ")");
  ::close(fd);
  if (created) fs::remove(p, ec);
}

eval_options to_options(const eval_flags& f, const std::string& problem, const std::string& candidate) {
  require_gpu_for(f.device);
  require_writable("--json", f.json_path);
  require_writable("--md", f.md_path);
  eval_options o;
  o.problem = problem;
  o.candidate = candidate;
  o.device = f.device;
  if (!f.dtype.empty()) o.dtype = f.dtype;
  o.mode = f.mode;
  o.timing = !f.no_timing;
  o.timing_budget_seconds = f.budget;
  if (f.rounds > 0) o.min_rounds = o.max_rounds = f.rounds;
  o.sandbox = !f.no_sandbox;
  o.tf32 = !f.no_tf32;
  o.host_reference = f.host_reference;
  o.sanitize = f.sanitize;
  if (!o.sanitize.empty() && o.device != "cuda")
    throw usage_error("--sanitize " + o.sanitize + ": needs --device cuda");
  o.hidden_count = f.hidden;
  o.torch_compile_cache = !f.no_compile_cache;
  if (f.shape_scale < 0 || (f.shape_scale > 0 && f.shape_scale == 1.0))
    throw usage_error("--shape-scale " + std::to_string(f.shape_scale) + ": expected a positive factor other than 1");
  o.shape_scale = f.shape_scale;
  o.call_timeout_seconds = f.call_timeout;
  o.rechecks_per_round = f.rechecks;
  o.worker_epochs = f.worker_epochs;
  o.trace = !f.no_trace;
  if (!f.torch.empty()) o.torch_baselines = parse_torch_baselines(f.torch);
  o.memory_limit_bytes = static_cast<std::size_t>(f.memory_limit_mib * 1024 * 1024);
  o.scratch_quota_bytes = static_cast<std::size_t>(f.scratch_limit_mib * 1024 * 1024);
  if (f.call_timeout <= 0) throw usage_error("--call-timeout: expected a positive number of seconds");
  if (!f.seed.empty()) {
    try {
      o.secret_seed = std::stoull(f.seed, nullptr, 16);
    } catch (const std::exception&) {
      throw usage_error("--seed " + f.seed + ": expected a hexadecimal number");
    }
  }
  if (f.budget <= 0)
    throw usage_error("--budget " + std::to_string(f.budget) + ": expected a positive number of seconds");
  if (o.worker_epochs > o.min_rounds)
    throw usage_error("--worker-epochs " + std::to_string(o.worker_epochs) + ": at most the number of rounds (" +
                      std::to_string(o.min_rounds) + "), each set of workers times at least one");
  return o;
}
}  // namespace kjudge::cli
