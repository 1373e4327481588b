#include "batch/slurm.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "core/json_file.hpp"
#include "core/subprocess.hpp"
#include "core/utc.hpp"

namespace kjudge::batch {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Slurm's commands answer within seconds; a controller that does not is worth saying so.
constexpr double k_slurm_timeout_s = 60;

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string joined(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + shell_quote(a);
  return out;
}

command_result run_slurm(const std::vector<std::string>& argv) {
  command_options o;
  o.timeout_seconds = k_slurm_timeout_s;
  command_result r = run_command(argv, o);
  if (r.exit_status == 127 || (r.exit_status != 0 && r.output.find("No such file") != std::string::npos &&
                               r.output.find(argv[0]) != std::string::npos))
    throw usage_error(argv[0] + " not found: --slurm needs Slurm's client commands (Debian: slurm-client)");
  return r;
}

fs::path jobs_file(const batch_state& s) {
  return slurm_dir(s) / "jobs.json";
}

json read_jobs(const batch_state& s) {
  std::ifstream in(jobs_file(s));
  if (!in) return json::array();
  json j = json::parse(in, nullptr, false);
  if (!j.is_array()) throw usage_error(jobs_file(s).string() + ": not a list of submissions");
  return j;
}

// Task index -> its latest job id ("J_I").
std::map<unsigned, std::string> job_of_task(const batch_state& s) {
  std::map<unsigned, std::string> out;
  for (const auto& sub : read_jobs(s))
    for (const auto& t : sub["tasks"])
      out[t.get<unsigned>()] = sub["job_id"].get<std::string>() + "_" + std::to_string(t.get<unsigned>());
  return out;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  for (std::string f; std::getline(ss, f, sep);) out.push_back(f);
  return out;
}

// squeue's view of the tasks it still holds: "J_I" -> (state, reason).
std::map<std::string, std::pair<std::string, std::string>> squeue_states(const std::vector<std::string>& job_ids) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  if (job_ids.empty()) return out;
  std::string list;
  for (const auto& j : job_ids) list += (list.empty() ? "" : ",") + j;
  // -r: one line per array task, pending ones included; %i is "J_I" for an array task.
  const auto r = run_slurm({"squeue", "-h", "-r", "-j", list, "-o", "%i|%T|%r"});
  if (r.exit_status != 0) return out;  // every job of the list has left the controller
  std::stringstream in(r.output);
  for (std::string line; std::getline(in, line);)
    if (const auto f = split(line, '|'); f.size() == 3) out[f[0]] = {f[1], f[2]};
  return out;
}

// sacct's view, where the cluster keeps accounting (an error otherwise: nothing).
std::map<std::string, std::string> sacct_states(const std::vector<std::string>& job_ids) {
  std::map<std::string, std::string> out;
  if (job_ids.empty()) return out;
  std::string list;
  for (const auto& j : job_ids) list += (list.empty() ? "" : ",") + j;
  const auto r = run_slurm({"sacct", "-n", "-P", "-X", "-j", list, "-o", "JobID,State"});
  if (r.exit_status != 0) return out;
  std::stringstream in(r.output);
  for (std::string line; std::getline(in, line);)
    if (const auto f = split(line, '|'); f.size() == 2) out[f[0]] = f[1];
  return out;
}

std::string status_line(const batch_state& s, unsigned i) {
  std::ifstream in(slurm_dir(s) / fmt::format("task-{}.status", i));
  std::string line;
  std::getline(in, line);
  return line;
}

std::string script_header(const batch_state& s, const slurm_request& r) {
  const fs::path dir = fs::absolute(slurm_dir(s));
  std::string h = "#!/bin/bash\n";
  h += fmt::format("# Written by `kjudge batch --slurm` for batch {}: array task I judges shard I of {}\n", s.batch_id,
                   r.tasks);
  h += "# (docs/batch.md). Submit again with: sbatch " + shell_quote((dir / "array.sbatch").string()) + "\n";
  h += "#SBATCH --job-name=kjudge-batch\n";
  h += fmt::format("#SBATCH --array=0-{}\n", r.tasks - 1);
  h += "#SBATCH --requeue\n#SBATCH --open-mode=append\n#SBATCH --export=ALL\n";
  h += "#SBATCH --output=" + (dir / "task-%a.out").string() + "\n";
  h += "#SBATCH --chdir=" + fs::absolute(r.workdir).string() + "\n";
  if (!r.partition.empty()) h += "#SBATCH --partition=" + r.partition + "\n";
  if (r.time_limit_min > 0) h += fmt::format("#SBATCH --time={}\n", r.time_limit_min);
  if (r.gpus_per_task > 0) h += fmt::format("#SBATCH --gres=gpu:{}\n", r.gpus_per_task);
  return h;
}

}  // namespace

fs::path slurm_dir(const batch_state& s) {
  return s.dir / "slurm";
}

std::string sbatch_script(const batch_state& s, const slurm_request& r) {
  if (r.tasks == 0) throw usage_error("--tasks: at least 1");
  if (r.task_argv.empty()) throw internal_error("sbatch_script: no task command");
  const fs::path dir = fs::absolute(slurm_dir(s));
  std::string b = script_header(s, r);
  b += "set -u\n";
  b += "dir=" + shell_quote(dir.string()) + "\n";
  b += "i=$SLURM_ARRAY_TASK_ID\nme=\"${SLURM_ARRAY_JOB_ID}_$i\"\nrestarts=${SLURM_RESTART_COUNT:-0}\n";
  // The status file is replaced whole (rename), so --status never reads half a line.
  b += "status() {\n"
       "  printf '%s job=%s restarts=%s at=%s %s\\n' \"$1\" \"$me\" \"$restarts\" \"$(date -u +%FT%TZ)\" \"${2:-}\" "
       ">\"$dir/task-$i.status.tmp\"\n"
       "  mv -f \"$dir/task-$i.status.tmp\" \"$dir/task-$i.status\"\n}\n";
  b += fmt::format(
      "# Requeues this task (it resumes its shard) unless --cancel asked not to or it has been\n"
      "# requeued {0} times already. $1: the state to record otherwise, $2: why.\n"
      "requeue() {{\n"
      "  if [ -e \"$dir/no-requeue\" ]; then status \"$1\" \"$2; not requeued: kjudge batch --cancel\"; return; fi\n"
      "  if [ \"$restarts\" -ge {0} ]; then status \"$1\" \"$2; not requeued: {0} requeues already\"; return; fi\n"
      "  if scontrol requeue \"$me\"; then status requeued \"$2\"; else status \"$1\" \"$2; scontrol requeue "
      "refused\"; fi\n"
      "}}\n",
      r.max_requeues);
  // scancel, pre-emption and the time limit send SIGTERM to every process of the task: kjudge
  // stops at once (no orphan workers, exit 130), the trap waits for it and requeues.
  b += "on_term() {\n  kill -TERM \"$child\" 2>/dev/null\n  wait \"$child\"\n  rc=$?\n"
       "  requeue interrupted \"SIGTERM, kjudge exit $rc\"\n  exit 143\n}\n";
  b += "trap on_term TERM INT\nstatus running\n";
  b += joined(r.task_argv) + fmt::format(" --shard \"$i/{}\" &\n", r.tasks);
  b += "child=$!\nwait \"$child\"\nrc=$?\n";
  b += "if [ \"$rc\" -eq 0 ]; then status completed; exit 0; fi\n";
  b += "requeue failed \"kjudge exit $rc\"\nexit \"$rc\"\n";
  return b;
}

std::string submit_array(const batch_state& s, const slurm_request& r, const std::vector<unsigned>& only) {
  fs::create_directories(slurm_dir(s));
  const fs::path script = slurm_dir(s) / "array.sbatch";
  {
    const fs::path tmp = script.string() + ".tmp";
    std::ofstream out(tmp);
    out << sbatch_script(s, r);
    if (!out.flush()) throw usage_error("cannot write " + tmp.string());
    fs::rename(tmp, script);
  }
  std::vector<unsigned> tasks = only;
  if (tasks.empty())
    for (unsigned i = 0; i < r.tasks; ++i) tasks.push_back(i);
  return resubmit_tasks(s, tasks);
}

std::string resubmit_tasks(const batch_state& s, const std::vector<unsigned>& tasks) {
  const fs::path script = fs::absolute(slurm_dir(s) / "array.sbatch");
  if (!fs::exists(script)) throw usage_error(script.string() + ": not found; submit with --slurm first");
  if (tasks.empty()) throw usage_error("nothing to resubmit");
  std::string list;
  for (const unsigned t : tasks) list += (list.empty() ? "" : ",") + std::to_string(t);
  // --array on the command line overrides the script's: only these tasks run.
  const auto r = run_slurm({"sbatch", "--parsable", "--array=" + list, script.string()});
  if (r.exit_status != 0) throw usage_error("sbatch refused the array: " + r.output);
  std::string id = r.output.substr(0, r.output.find_first_of(";\n"));  // "J" or "J;cluster"
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw internal_error("sbatch --parsable printed no job id: " + r.output);
  fs::remove(slurm_dir(s) / "no-requeue");
  json jobs = read_jobs(s);
  jobs.push_back({{"job_id", id}, {"tasks", tasks}, {"utc", utc_now()}});
  write_json_file(jobs_file(s), jobs);
  return id;
}

unsigned submitted_task_count(const batch_state& s) {
  unsigned n = 0;
  for (const auto& [i, job] : job_of_task(s)) n = std::max(n, i + 1);
  return n;
}

std::vector<task_state> query_tasks(const batch_state& s) {
  const auto jobs = job_of_task(s);
  std::vector<std::string> ids;
  for (const auto& sub : read_jobs(s)) ids.push_back(sub["job_id"].get<std::string>());
  const auto queued = squeue_states(ids);
  std::map<std::string, std::string> accounted;  // asked only when squeue no longer has a task
  bool asked_sacct = false;
  std::vector<task_state> out;
  for (const auto& [i, job] : jobs) {
    task_state t{.index = i, .job = job};
    const std::string line = status_line(s, i);
    if (const auto q = queued.find(job); q != queued.end()) {
      t = {.index = i, .job = job, .state = lower(q->second.first), .source = "squeue", .detail = line, .live = true};
      if (q->second.second != "None") t.detail = q->second.second + (line.empty() ? "" : "; " + line);
    } else {
      if (!asked_sacct) accounted = sacct_states(ids), asked_sacct = true;
      if (const auto a = accounted.find(job); a != accounted.end())
        t = {.index = i, .job = job, .state = lower(a->second), .source = "sacct", .detail = line};
      else
        t = {.index = i,
             .job = job,
             .state = line.empty() ? "unknown" : line.substr(0, line.find(' ')),
             .source = "status-file",
             .detail = line};
    }
    out.push_back(t);
  }
  return out;
}

void cancel_array(const batch_state& s) {
  fs::create_directories(slurm_dir(s));
  std::ofstream(slurm_dir(s) / "no-requeue") << utc_now() << "\n";
  for (const auto& sub : read_jobs(s)) {
    const auto r = run_slurm({"scancel", sub["job_id"].get<std::string>()});
    if (r.exit_status != 0) throw usage_error("scancel " + sub["job_id"].get<std::string>() + ": " + r.output);
  }
}

}  // namespace kjudge::batch
