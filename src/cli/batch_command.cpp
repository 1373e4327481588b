#include "cli/batch_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "batch/discovery.hpp"
#include "batch/runner.hpp"
#include "batch/state.hpp"
#include "batch/summary.hpp"
#include "cli/batch_slurm.hpp"
#include "cli/eval_flags.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/interrupt.hpp"
#include "core/json_file.hpp"
#include "core/paths.hpp"

namespace kjudge::cli {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct batch_flags {
  std::string run_dir;
  std::string problems;  // the imported problems' root; default imported_problems_root()
  std::string layout = "auto";
  std::string devices;  // "0,1,..." (cuda)
  std::string shard;    // "I/N"
  std::string state;    // default RUN_DIR/.kjudge-batch
  std::string tolerance = "kjudge";
  std::string out;  // eval_results.json; default RUN_DIR/eval_results.json
  bool summary_only = false;
  bool list = false;
  bool retry = false;
  std::string one;  // a child's one candidate key (--devices)
  eval_flags ef;
  slurm_flags sl;  // --slurm, --status, --cancel, --resubmit (cli/batch_slurm.hpp)
};

CLI::App* g_batch = nullptr;
batch_flags g_flags;

std::vector<std::string> split_devices(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string d = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (d.empty() || d.find_first_not_of("0123456789") != std::string::npos)
      throw usage_error("--devices " + text + ": expected device numbers separated by commas, e.g. 0,1,2,3");
    out.push_back(d);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// What a result depends on, recorded in batch.json (per-task choices, --shard and --devices, are not).
json recorded_options(const batch_flags& f, const fs::path& problems_root) {
  const eval_flags& e = f.ef;
  return {{"device", e.device},
          {"dtype", e.dtype},
          {"mode", e.mode},
          {"budget", e.budget},
          {"rounds", e.rounds},
          {"no_timing", e.no_timing},
          {"hidden", e.hidden},
          {"torch", e.torch},
          {"shape_scale", e.shape_scale},
          {"tolerance", f.tolerance},
          {"problems", problems_root.string()}};
}

// A child's command line: this one without --devices and --shard, quiet, judging one key.
std::vector<std::string> child_argv(int argc, char** argv) {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::vector<std::string> out{ec ? std::string(argv[0]) : self.string()};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--devices" || a == "--shard") {
      ++i;
      continue;
    }
    if (a.rfind("--devices=", 0) == 0 || a.rfind("--shard=", 0) == 0) continue;
    out.push_back(a);
  }
  out.insert(out.end(), {"-q", "--one"});
  return out;
}

batch::run_options run_options_for(const batch_flags& f, int argc, char** argv) {
  batch::run_options o;
  o.base = to_options(f.ef, "", "");
  o.tolerance = f.tolerance;
  o.store = !f.ef.no_store;
  o.db = f.ef.db_path.empty() ? default_db_path() : fs::path(f.ef.db_path);
  o.quiet = f.ef.quiet;
  o.retry = f.retry;
  if (!f.devices.empty() && f.one.empty()) {
    // A timed cpu evaluation needs the machine to itself; correctness-only ones may share it.
    if (f.ef.device != "cuda" && !f.ef.no_timing)
      throw usage_error(
          "--devices: only with --device cuda, or on the cpu with --no-timing (a timed cpu "
          "evaluation needs the machine to itself: cpu candidates are timed one at a time)");
    o.devices = split_devices(f.devices);
    o.child_argv = child_argv(argc, argv);
  }
  return o;
}

// eval_results.json and fast_p from every result present (all shards'), and the table on stdout.
void write_summary(const batch::batch_state& s, const batch_flags& f) {
  const auto results = batch::read_results(s);
  json fast = batch::fast_p(results);
  const fs::path out = f.out.empty() ? fs::path(f.run_dir) / "eval_results.json" : fs::path(f.out);
  write_json_file(out, batch::kernelbench_eval_results(results));
  write_json_file(out.parent_path() / (out.stem().string() + ".fast_p.json"), fast);
  std::cout << batch::summary_table(results, fast);
  std::printf("eval_results: %s (KernelBench's shape; kjudge's verdicts under \"kjudge\")\n", out.string().c_str());
  std::fflush(stdout);
}

int run_batch_command(const batch_flags& f, int argc, char** argv) {
  const fs::path run_dir(f.run_dir);
  if (slurm_query_selected(f.sl))
    return run_slurm_query(f.sl, f.state.empty() ? run_dir / ".kjudge-batch" : fs::path(f.state));
  const fs::path problems_root = f.problems.empty() ? imported_problems_root() : fs::path(f.problems);
  const batch::discovery d = batch::discover(run_dir, f.layout, problems_root);
  if (f.one.empty())
    for (const auto& u : d.unmatched) std::fprintf(stderr, "kjudge batch: not judged: %s\n", u.c_str());
  if (d.candidates.empty())
    throw usage_error(f.run_dir + ": no candidates found (layout " + d.layout + "; " +
                      std::to_string(d.unmatched.size()) + " file(s) not matched)");
  // Options checked before the state directory is made: a refused run leaves nothing behind.
  const bool judging = !f.list && !f.summary_only;
  const batch::run_options o = judging ? run_options_for(f, argc, argv) : batch::run_options{};
  const fs::path state_dir = f.state.empty() ? run_dir / ".kjudge-batch" : fs::path(f.state);
  const batch::batch_state s =
      batch::open_state(state_dir, run_dir, d.layout, d.candidates, recorded_options(f, problems_root));
  if (f.sl.slurm) {
    if (!f.shard.empty() || !f.devices.empty() || f.list || f.summary_only || !f.one.empty())
      throw usage_error(
          "--slurm: each task takes its own --shard and GPU; not with --shard, --devices, --list, "
          "--summary or --one");
    return submit_slurm_batch(f.sl, s, f.run_dir, d.candidates.size(), f.ef.device, argc, argv);
  }
  auto shard = d.candidates;
  if (!f.shard.empty()) {
    const auto [i, n] = batch::parse_shard(f.shard);
    shard = batch::pick_shard(d.candidates, i, n);
  }
  if (f.list) {
    for (const auto& c : shard)
      std::printf("%s%s\n", batch::candidate_key(s, c).c_str(),
                  batch::has_result(s, batch::candidate_key(s, c)) ? "  (judged)" : "");
    return 0;
  }
  if (f.summary_only) {
    write_summary(s, f);
    return 0;
  }
  if (!f.one.empty()) {
    for (const auto& c : d.candidates)
      if (batch::candidate_key(s, c) == f.one)
        return batch::judge_one(s, c, o)["batch"]["outcome"] == "judge_fault" ? 3 : 0;
    throw usage_error("--one " + f.one + ": no such candidate in " + f.run_dir);
  }
  const int hook = interrupt::add_hook(
      [](int) { std::fprintf(stderr, "\nkjudge batch: interrupted; rerun the same command to judge the rest\n"); });
  const batch::run_tally t = batch::run_batch(s, shard, o);
  interrupt::remove_hook(hook);
  write_summary(s, f);
  // This shard's faults only: a Slurm task's exit status is about the candidates it was given.
  int faults = 0;
  for (const auto& c : shard) {
    const auto key = batch::candidate_key(s, c);
    if (!batch::has_result(s, key)) throw internal_error(key + ": no result after the batch");
    const json doc = read_json_file(batch::result_path(s, key));
    faults += doc.contains("batch") && doc["batch"].value("outcome", "") == "judge_fault" ? 1 : 0;
  }
  std::fprintf(stderr, "kjudge batch %s: %d of %d judged now, %d before; %d judge fault(s) in this shard\n",
               s.batch_id.c_str(), t.judged, t.total, t.already, faults);
  return faults == 0 ? 0 : 3;
}

}  // namespace

void add_batch_command(CLI::App& app) {
  batch_flags& f = g_flags;
  g_batch = app.add_subcommand(
      "batch",
      "judge a run directory of candidates (kjudge, KernelBench or GPU MODE layout); resumable; writes "
      "eval_results.json (KernelBench's shape) and fast_p: exit 0 when every candidate has a result, 3 on a judge "
      "fault");
  g_batch->add_option("RUN_DIR", f.run_dir, "the run directory")->required();
  g_batch->add_option("--problems", f.problems,
                      "the imported problems' root (default: $KJUDGE_IMPORTED, else beside the store)");
  g_batch
      ->add_option("--layout", f.layout,
                   "kjudge (RUN_DIR/<problem>/<candidate>), kernelbench (level_<L>_problem_<P>_sample_<S>_kernel.py), "
                   "gpumode (<problem>/submission.py), or auto (by what is present)")
      ->check(CLI::IsMember({"auto", "kjudge", "kernelbench", "gpumode"}));
  g_batch->add_option("--devices", f.devices,
                      "cuda: judge on these GPUs, one evaluation per GPU at a time, each in a child kjudge with "
                      "CUDA_VISIBLE_DEVICES set (e.g. 0,1,2,3); cpu: only with --no-timing, as many "
                      "correctness-only evaluations at once as devices listed");
  g_batch->add_option("--shard", f.shard, "judge only shard I of N (the candidates at index I modulo N), e.g. 0/4");
  g_batch->add_option("--state", f.state, "the state directory (default RUN_DIR/.kjudge-batch)");
  g_batch
      ->add_option("--tolerance", f.tolerance,
                   "kjudge (the problem's tolerance, default) or kernelbench (atol = rtol = 1e-2 applied instead; the "
                   "verdict under the problem's own tolerance is reported beside)")
      ->check(CLI::IsMember({"kjudge", "kernelbench"}));
  g_batch->add_option("--out", f.out, "eval_results.json's path (default RUN_DIR/eval_results.json)");
  g_batch->add_flag("--summary", f.summary_only,
                    "judge nothing: write eval_results.json and fast_p from the results present");
  g_batch->add_flag("--list", f.list,
                    "judge nothing: list the candidates (of the shard) and whether each has a result");
  g_batch->add_flag("--retry", f.retry,
                    "judge again the candidates whose result is not a judgement (bad_input or judge_fault: a "
                    "reference that could not start, a machine without the memory), once the cause is fixed");
  g_batch->add_option("--one", f.one, "judge the one candidate of this key (what --devices runs per device)")
      ->group("");  // internal
  add_eval_flags(g_batch, f.ef);
  add_slurm_flags(g_batch, f.sl);
}

bool run_batch_command_if_selected(int& exit_status, int argc, char** argv) {
  if (g_batch == nullptr || !g_batch->parsed()) return false;
  exit_status = run_batch_command(g_flags, argc, argv);
  return true;
}

}  // namespace kjudge::cli
