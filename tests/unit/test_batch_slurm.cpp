// The job array script of `kjudge batch --slurm` (src/batch/slurm.*): its Slurm directives, and
// its requeue logic run by bash with a stand-in `scontrol` that records what it is asked (the real
// cluster: tests/slurm/).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "batch/slurm.hpp"
#include "core/subprocess.hpp"

namespace kjudge::batch {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct BatchSlurmScript : ::testing::Test {
  fs::path root = fs::temp_directory_path() / ("kj-slurm-unit-" + std::to_string(::getpid()));
  batch_state s{root / "state", "btest"};
  void SetUp() override {
    fs::remove_all(root);
    fs::create_directories(slurm_dir(s));
    fs::create_directories(root / "bin");
    // scontrol: records its arguments, answers as told by $FAKE_SCONTROL_RC.
    std::ofstream(root / "bin/scontrol") << "#!/bin/sh\necho \"$@\" >>" << (root / "scontrol.log").string()
                                         << "\nexit ${FAKE_SCONTROL_RC:-0}\n";
    fs::permissions(root / "bin/scontrol", fs::perms::owner_all);
  }
  void TearDown() override { fs::remove_all(root); }

  // Writes the script for a task running `task` (a shell command) and runs it as task 1 of job 7.
  command_result run_task(const std::string& task, int restarts, unsigned max_requeues = 3) {
    slurm_request r;
    r.tasks = 3;
    r.max_requeues = max_requeues;
    r.task_argv = {"sh", "-c", task};
    r.workdir = root;
    std::ofstream(root / "array.sbatch") << sbatch_script(s, r);
    command_options o;
    o.timeout_seconds = 30;
    o.extra_env = {{"PATH", (root / "bin").string() + ":/usr/bin:/bin"},
                   {"SLURM_ARRAY_JOB_ID", "7"},
                   {"SLURM_ARRAY_TASK_ID", "1"},
                   {"SLURM_RESTART_COUNT", std::to_string(restarts)}};
    return run_command({"bash", (root / "array.sbatch").string()}, o);
  }
  std::string status() { return slurp(slurm_dir(s) / "task-1.status"); }
  std::string scontrol_calls() { return slurp(root / "scontrol.log"); }
};

TEST_F(BatchSlurmScript, DirectivesNameTheArrayTheGpuTheTimeAndTheOutputPerTask) {
  slurm_request r;
  r.tasks = 4;
  r.partition = "gpu";
  r.time_limit_min = 30;
  r.gpus_per_task = 1;
  r.task_argv = {"/opt/kjudge", "batch", "run dir/with 'quote'", "--device", "cuda"};
  r.workdir = root;
  const std::string text = sbatch_script(s, r);
  for (const std::string& line : std::vector<std::string>{
           "#SBATCH --array=0-3\n", "#SBATCH --requeue\n", "#SBATCH --partition=gpu\n", "#SBATCH --time=30\n",
           "#SBATCH --gres=gpu:1\n", "#SBATCH --output=" + fs::absolute(slurm_dir(s) / "task-%a.out").string() + "\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line << " not in:\n" << text;
  EXPECT_NE(text.find("'/opt/kjudge' 'batch' 'run dir/with '\\''quote'\\''' '--device' 'cuda' --shard \"$i/4\""),
            std::string::npos)
      << text;
  r.gpus_per_task = 0;
  r.time_limit_min = 0;
  r.partition.clear();
  const std::string cpu = sbatch_script(s, r);
  EXPECT_EQ(cpu.find("--gres"), std::string::npos);
  EXPECT_EQ(cpu.find("--time"), std::string::npos);
  EXPECT_EQ(cpu.find("--partition"), std::string::npos);
}

TEST_F(BatchSlurmScript, ATaskThatFinishesIsCompletedAndNotRequeued) {
  const auto r = run_task("test \"$0\" = --shard && test \"$1\" = 1/3", 0);
  EXPECT_EQ(r.exit_status, 0) << r.output;
  EXPECT_EQ(status().rfind("completed job=7_1 restarts=0 ", 0), 0u) << status();
  EXPECT_EQ(scontrol_calls(), "");
}

TEST_F(BatchSlurmScript, AFailedTaskRequeuesItselfUntilItsRequeuesAreSpent) {
  auto r = run_task("exit 3", 1);
  EXPECT_EQ(r.exit_status, 3) << r.output;
  EXPECT_EQ(scontrol_calls(), "requeue 7_1\n");
  EXPECT_EQ(status().rfind("requeued job=7_1 restarts=1 ", 0), 0u) << status();
  r = run_task("exit 3", 3);
  EXPECT_EQ(r.exit_status, 3) << r.output;
  EXPECT_EQ(scontrol_calls(), "requeue 7_1\n");  // no second call
  EXPECT_NE(status().find("failed job=7_1 restarts=3 "), std::string::npos) << status();
  EXPECT_NE(status().find("not requeued: 3 requeues already"), std::string::npos) << status();
}

TEST_F(BatchSlurmScript, AfterCancelAFailedTaskIsNotRequeued) {
  std::ofstream(slurm_dir(s) / "no-requeue") << "x\n";
  const auto r = run_task("exit 3", 0);
  EXPECT_EQ(r.exit_status, 3) << r.output;
  EXPECT_EQ(scontrol_calls(), "");
  EXPECT_NE(status().find("not requeued: kjudge batch --cancel"), std::string::npos) << status();
}

TEST_F(BatchSlurmScript, ATaskInterruptedBySigtermStopsItsKjudgeAndRequeues) {
  slurm_request r;
  r.tasks = 3;
  // The stand-in for kjudge: writes its pid, exits 130 on SIGTERM as kjudge does.
  r.task_argv = {"sh", "-c",
                 "echo $$ >" + (root / "child.pid").string() + "; trap 'exit 130' TERM; while :; do sleep 0.1; done"};
  r.workdir = root;
  std::ofstream(root / "array.sbatch") << sbatch_script(s, r);
  const std::string cmd = "SLURM_ARRAY_JOB_ID=7 SLURM_ARRAY_TASK_ID=1 PATH=" + (root / "bin").string() +
                          ":/usr/bin:/bin bash " + (root / "array.sbatch").string() + " & p=$!; " + "while [ ! -s " +
                          (root / "child.pid").string() + " ]; do sleep 0.1; done; kill -TERM $p; wait $p; echo rc=$?";
  const auto out = run_command({"bash", "-c", cmd}, {.timeout_seconds = 30});
  EXPECT_NE(out.output.find("rc=143"), std::string::npos) << out.output;
  EXPECT_EQ(scontrol_calls(), "requeue 7_1\n");
  EXPECT_EQ(status().rfind("requeued job=7_1 restarts=0 ", 0), 0u) << status();
  EXPECT_NE(status().find("SIGTERM, kjudge exit 130"), std::string::npos) << status();
  const int child = std::stoi(slurp(root / "child.pid"));
  EXPECT_NE(::kill(child, 0), 0) << "the task's kjudge (pid " << child << ") outlived its task";
}

}  // namespace
}  // namespace kjudge::batch
