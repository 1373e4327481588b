#include "cli/batch_slurm.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <map>

#include "batch/slurm.hpp"
#include "core/error.hpp"

namespace kjudge::cli {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// The options a task does not take: the Slurm ones, and --shard/--devices (a task judges its own
// shard on the GPU Slurm gave it). Returns how many argv entries `a` starts (0: a task's option).
int slurm_only_arity(const std::string& a) {
  static const std::vector<std::string> valued{"--partition",    "--time-limit", "--tasks",  "--gpus-per-task",
                                               "--max-requeues", "--shard",      "--devices"};
  static const std::vector<std::string> flags{"--slurm", "--status", "--cancel", "--resubmit"};
  for (const auto& v : valued) {
    if (a == v) return 2;
    if (a.rfind(v + "=", 0) == 0) return 1;
  }
  for (const auto& f : flags)
    if (a == f) return 1;
  return 0;
}

std::vector<std::string> task_argv(int argc, char** argv) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::vector<std::string> out{ec ? fs::absolute(argv[0]).string() : self.string()};
  for (int i = 1; i < argc; ++i) {
    if (const int n = slurm_only_arity(argv[i]); n > 0) {
      i += n - 1;
      continue;
    }
    out.emplace_back(argv[i]);
  }
  return out;
}

struct batch_doc {
  batch::batch_state state;
  std::vector<std::string> keys;  // in shard order
};

batch_doc read_batch(const fs::path& state_dir) {
  const fs::path file = state_dir / "batch.json";
  std::ifstream in(file);
  if (!in) throw usage_error(file.string() + ": no batch here (give --state, or submit with --slurm first)");
  const json doc = json::parse(in, nullptr, false);
  if (!doc.is_object() || !doc.contains("batch_id") || !doc["batch_id"].is_string())
    throw usage_error(file.string() + ": not a batch state file");
  batch_doc b{{state_dir, doc["batch_id"].get<std::string>()}, {}};
  for (const auto& c : doc.value("candidates", json::array())) b.keys.push_back(c.value("key", ""));
  return b;
}

struct shard_progress {
  unsigned done = 0, total = 0;
};

std::vector<shard_progress> progress(const batch_doc& b, unsigned tasks) {
  std::vector<shard_progress> out(tasks);
  for (std::size_t i = 0; i < b.keys.size(); ++i) {
    auto& p = out[i % tasks];
    ++p.total;
    p.done += batch::has_result(b.state, b.keys[i]) ? 1 : 0;
  }
  return out;
}

int print_status(const batch_doc& b) {
  const unsigned tasks = batch::submitted_task_count(b.state);
  if (tasks == 0) throw usage_error(batch::slurm_dir(b.state).string() + ": nothing submitted to Slurm for this batch");
  const auto p = progress(b, tasks);
  const auto states = batch::query_tasks(b.state);
  std::printf("batch %s: %u array tasks, %zu candidates\n", b.state.batch_id.c_str(), tasks, b.keys.size());
  std::printf("%-5s %-9s %-10s %-12s %s\n", "task", "judged", "job", "state", "detail");
  unsigned done = 0, live = 0, finished = 0;
  std::map<std::string, unsigned> by_state;
  for (const auto& t : states) {
    const auto& sp = p[t.index];
    done += sp.done;
    live += t.live ? 1 : 0;
    finished += !t.live && sp.done == sp.total ? 1 : 0;
    ++by_state[t.state];
    std::printf("%-5u %-9s %-10s %-12s %s%s\n", t.index, fmt::format("{}/{}", sp.done, sp.total).c_str(), t.job.c_str(),
                t.state.c_str(), t.source == "squeue" ? "" : ("[" + t.source + "] ").c_str(), t.detail.c_str());
  }
  std::string counts;
  for (const auto& [state, n] : by_state) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, state);
  std::printf("total: %u/%zu judged; tasks: %s; %u of %u shards finished, %u in Slurm's queue\n", done, b.keys.size(),
              counts.c_str(), finished, tasks, live);
  return 0;
}

int resubmit(const batch_doc& b) {
  const unsigned tasks = batch::submitted_task_count(b.state);
  if (tasks == 0) throw usage_error("nothing submitted to Slurm for this batch: use --slurm");
  const auto p = progress(b, tasks);
  std::vector<unsigned> again;
  for (const auto& t : batch::query_tasks(b.state))
    if (!t.live && p[t.index].done < p[t.index].total) again.push_back(t.index);
  if (again.empty()) {
    std::printf("nothing to resubmit: every task is finished or still in Slurm's queue\n");
    return 0;
  }
  const std::string id = batch::resubmit_tasks(b.state, again);
  std::string list;
  for (const unsigned t : again) list += (list.empty() ? "" : ",") + std::to_string(t);
  std::printf("resubmitted tasks %s as job %s\n", list.c_str(), id.c_str());
  return 0;
}

}  // namespace

void add_slurm_flags(CLI::App* batch, slurm_flags& f) {
  const std::string g = "Slurm (docs/batch.md)";
  batch
      ->add_flag("--slurm", f.slurm,
                 "submit the batch to Slurm as a job array (one task per shard, each running kjudge batch --shard "
                 "I/N); prints the job id")
      ->group(g);
  batch->add_option("--partition", f.partition, "--slurm: the partition (default: the cluster's)")->group(g);
  batch->add_option("--time-limit", f.time_limit_min, "--slurm: each task's time limit, minutes")->group(g);
  batch->add_option("--tasks", f.tasks, "--slurm: the array's size N (default: min(candidates, 8))")
      ->check(CLI::PositiveNumber)
      ->group(g);
  batch->add_option("--gpus-per-task", f.gpus_per_task, "--slurm: --gres=gpu:G per task (default 1 on cuda, 0 on cpu)")
      ->group(g);
  batch
      ->add_option("--max-requeues", f.max_requeues,
                   "--slurm: an interrupted or failed task requeues itself at most this many times (default 3)")
      ->group(g);
  batch->add_flag("--status", f.status, "the Slurm array's progress: per task, candidates judged and Slurm's state")
      ->group(g);
  batch->add_flag("--cancel", f.cancel, "cancel the Slurm array (its tasks are not requeued)")->group(g);
  batch
      ->add_flag("--resubmit", f.resubmit,
                 "submit again the tasks no longer in Slurm's queue whose shard is not finished")
      ->group(g);
}

bool slurm_query_selected(const slurm_flags& f) {
  return f.status || f.cancel || f.resubmit;
}

int run_slurm_query(const slurm_flags& f, const fs::path& state_dir) {
  if (f.status + f.cancel + f.resubmit + f.slurm > 1)
    throw usage_error("--slurm, --status, --cancel and --resubmit: one at a time");
  const batch_doc b = read_batch(state_dir);
  if (f.cancel) {
    batch::cancel_array(b.state);
    std::printf("cancelled batch %s's Slurm jobs; --resubmit to continue it\n", b.state.batch_id.c_str());
    return 0;
  }
  return f.resubmit ? resubmit(b) : print_status(b);
}

int submit_slurm_batch(const slurm_flags& f, const batch::batch_state& s, const std::string& run_dir,
                       std::size_t n_candidates, const std::string& device, int argc, char** argv) {
  batch::slurm_request r;
  r.tasks = f.tasks > 0 ? f.tasks : static_cast<unsigned>(std::min<std::size_t>(n_candidates, 8));
  if (r.tasks > n_candidates)
    throw usage_error(fmt::format("--tasks {}: more tasks than the {} candidates", r.tasks, n_candidates));
  r.partition = f.partition;
  r.time_limit_min = f.time_limit_min;
  r.gpus_per_task = f.gpus_per_task >= 0 ? static_cast<unsigned>(f.gpus_per_task) : (device == "cuda" ? 1 : 0);
  r.max_requeues = f.max_requeues;
  r.task_argv = task_argv(argc, argv);
  r.workdir = fs::current_path();
  const std::string id = batch::submit_array(s, r);
  std::printf("submitted batch %s as Slurm job %s: %u tasks over %zu candidates (script %s)\n", s.batch_id.c_str(),
              id.c_str(), r.tasks, n_candidates, (batch::slurm_dir(s) / "array.sbatch").string().c_str());
  std::printf("progress: kjudge batch %s --status --state %s\n", run_dir.c_str(), fs::absolute(s.dir).string().c_str());
  return 0;
}

}  // namespace kjudge::cli
