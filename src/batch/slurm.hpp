// `kjudge batch --slurm` (docs/batch.md, "On a Slurm cluster"): a batch as a Slurm job array, one
// array task per shard, each task running `kjudge batch RUN_DIR --shard I/N`. Slurm decides where
// and when tasks run; kjudge writes the script, submits it and reads the array's state back, all
// through Slurm's commands (sbatch, squeue, sacct, scontrol, scancel) run as subprocesses.
//
// In the state directory, under slurm/:
//   array.sbatch        the script submitted
//   jobs.json           every submission: {"job_id", "tasks": [indices], "utc"} (a resubmission
//                       of some tasks adds one; the latest naming a task is that task's job)
//   task-I.out          task I's output, appended across its runs
//   task-I.status       task I's last word: "running|completed|requeued|interrupted|failed
//                       job=J_I restarts=R at=UTC [why]", written by the task's script
//   no-requeue          present after `--cancel`: a task interrupted then is not requeued
//
// Requeue: a task interrupted (scancel, pre-emption, its time limit: Slurm sends SIGTERM, then
// SIGKILL after KillWait) or whose kjudge failed requeues itself with `scontrol requeue` up to
// max_requeues times; a requeued task resumes its shard (judged candidates are never judged again).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "batch/state.hpp"

namespace kjudge::batch {

struct slurm_request {
  unsigned tasks = 1;                  // the array's size: shard I of N is task I
  std::string partition;               // empty: the cluster's default partition
  unsigned time_limit_min = 0;         // per task; 0: the partition's limit
  unsigned gpus_per_task = 0;          // --gres=gpu:G (cuda)
  unsigned max_requeues = 3;           // a task requeues itself at most this many times
  std::vector<std::string> task_argv;  // a task's command line, to which "--shard I/N" is added
  std::filesystem::path workdir;       // the tasks' working directory (relative paths in task_argv)
};

std::filesystem::path slurm_dir(const batch_state& s);

// The sbatch script for the request (shell-quoted; no Slurm needed to write it).
std::string sbatch_script(const batch_state& s, const slurm_request& r);

// Writes the script, submits it with `sbatch --parsable` (only the tasks listed, all when empty)
// and records the submission in jobs.json; returns the job id. Throws usage_error naming sbatch's
// message when it refuses.
std::string submit_array(const batch_state& s, const slurm_request& r, const std::vector<unsigned>& only = {});

// Submits again, from the script already written, the tasks listed.
std::string resubmit_tasks(const batch_state& s, const std::vector<unsigned>& tasks);

struct task_state {
  unsigned index = 0;
  std::string job;     // "J_I", empty when never submitted
  std::string state;   // Slurm's (PENDING, RUNNING, COMPLETED...) or the status file's, lower case
  std::string source;  // squeue, sacct or status-file
  std::string detail;  // reason, restarts, what the task last wrote
  bool live = false;   // still pending or running in Slurm
};

// The array's task count from jobs.json (0 when nothing was submitted).
unsigned submitted_task_count(const batch_state& s);

// Each task's state: squeue for the tasks Slurm still holds, then sacct where accounting answers,
// then the task's own status file.
std::vector<task_state> query_tasks(const batch_state& s);

// `--cancel`: tells the tasks not to requeue themselves, then scancels every submission.
void cancel_array(const batch_state& s);

}  // namespace kjudge::batch
