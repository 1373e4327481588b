// `kjudge batch --slurm` on a real one-node Slurm cluster (scripts/local-cluster.sh, started by
// the SlurmCluster.Start fixture; its directory in $KJ_TEST_CLUSTER): six CPU candidates, honest
// and cheating, as an array of 3 tasks writing to the cluster's PostgreSQL. One task is
// scancelled after it judged a candidate and before it finished its shard; it must requeue itself
// and complete. Then every verdict is in PostgreSQL exactly once, and the verdicts are those of
// the same batch judged locally (no Slurm, a SQLite store).
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "cli_test_util.hpp"

namespace kjudge::test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

const fs::path source_dir = fs::path(KJUDGE_TEST_DATA) / "..";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string first_line(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

command_result run_env(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                       double timeout_s = 120) {
  command_options o;
  o.timeout_seconds = timeout_s;
  o.extra_env = env;
  return run_command(argv, o);
}

// The run directory: kjudge layout, six candidates of two problems, three of them cheats.
fs::path make_run_dir(const fs::path& root) {
  fs::remove_all(root);
  const std::vector<std::pair<std::string, fs::path>> files{
      {"softmax", source_dir / "examples/softmax/fast.cpp"},
      {"softmax", source_dir / "examples/softmax/cheat_no_max.cpp"},
      {"softmax", source_dir / "tests/candidates/ok_honest_softmax.cpp"},
      {"softmax", source_dir / "tests/candidates/wrong_softmax_off_by_scale.cpp"},
      {"gelu_bias_residual", source_dir / "examples/gelu_bias_residual/naive.cpp"},
      {"gelu_bias_residual", source_dir / "examples/gelu_bias_residual/cheat_tanh_gelu.cpp"}};
  for (const auto& [problem, file] : files) {
    fs::create_directories(root / problem);
    fs::copy_file(file, root / problem / file.filename());
  }
  return root;
}

// "<problem>/<candidate>" -> "status rule" of every result in a state directory.
std::map<std::string, std::string> verdicts(const fs::path& state) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(state / "results"); it != fs::recursive_directory_iterator(); ++it) {
    if (!it->is_regular_file() || it->path().extension() != ".json" || it->path().filename().string()[0] == '.')
      continue;
    const json r = json::parse(slurp(it->path()));
    const std::string key = r["batch"]["key"].get<std::string>();
    const auto& v = r["verdict"];
    out[key.substr(key.find('/') + 1)] =
        v["status"].get<std::string>() + " " + (v["rule"].is_string() ? v["rule"].get<std::string>() : "-");
  }
  return out;
}

std::map<std::string, std::string> squeue(const std::string& job, const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  const auto r = run_env({"squeue", "-h", "-r", "-j", job, "-o", "%i %T"}, env);
  std::istringstream in(r.output);
  for (std::string id, state; in >> id >> state;) out[id] = state;
  return out;
}

std::vector<std::string> batch_keys(const fs::path& state) {
  const json doc = json::parse(slurp(state / "batch.json"));
  std::vector<std::string> keys;
  for (const auto& c : doc["candidates"]) keys.push_back(c["key"]);
  return keys;
}

unsigned judged_in_shard(const fs::path& state, const std::vector<std::string>& keys, unsigned shard, unsigned n) {
  unsigned done = 0;
  for (std::size_t i = shard; i < keys.size(); i += n)
    done += fs::exists(state / "results" / (keys[i] + ".json")) ? 1 : 0;
  return done;
}

// Waits (polling every 0.5 s) until pred() or the deadline; false on the deadline.
template <class F>
bool wait_until(F pred, std::chrono::seconds limit) {
  const auto end = clock_type::now() + limit;
  while (clock_type::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return pred();
}

std::string tail_of(const fs::path& p) {
  const std::string s = slurp(p);
  return s.size() > 3000 ? s.substr(s.size() - 3000) : s;
}

TEST(BatchSlurm, ArrayWithOneTaskCancelledMidRunRequeuesAndMatchesTheLocalBatch) {
  const char* d = std::getenv("KJ_TEST_CLUSTER");
  ASSERT_NE(d, nullptr) << "KJ_TEST_CLUSTER unset: run through ctest (fixture SlurmCluster.Start)";
  const fs::path cdir = d;
  ASSERT_TRUE(fs::exists(cdir / "slurm.conf")) << "no cluster in " << cdir << ": did SlurmCluster.Start fail?";
  const std::string db = first_line(cdir / "postgres.url");
  ASSERT_FALSE(db.empty()) << "no PostgreSQL URL in " << cdir / "postgres.url";
  const std::map<std::string, std::string> env{{"SLURM_CONF", (cdir / "slurm.conf").string()}, {"KJUDGE_DB", db}};

  const fs::path run = make_run_dir(test_dir() / "slurm-run");
  const fs::path state = run / ".kjudge-batch";
  // Small budgets: each candidate is judged in a few seconds; below 6 rounds no verdict rests on
  // a speedup CI, so the verdicts do not depend on the cluster's load.
  const std::vector<std::string> judge{"--budget", "0.3", "--rounds", "3", "--hidden", "4", "-q"};
  std::vector<std::string> submit{KJUDGE_BIN, "batch", run.string(), "--slurm", "--tasks", "3"};
  submit.insert(submit.end(), judge.begin(), judge.end());
  const auto sub = run_env(submit, env);
  ASSERT_EQ(sub.exit_status, 0) << sub.output;
  const json jobs = json::parse(slurp(state / "slurm/jobs.json"));
  ASSERT_EQ(jobs.size(), 1u);
  const std::string job = jobs[0]["job_id"];
  const auto keys = batch_keys(state);
  ASSERT_EQ(keys.size(), 6u);

  // A task running, with a candidate of its shard judged and one still to judge.
  int victim = -1;
  const bool found = wait_until(
      [&] {
        const auto q = squeue(job, env);
        for (unsigned i = 0; i < 3; ++i) {
          const auto it = q.find(job + "_" + std::to_string(i));
          if (it != q.end() && it->second == "RUNNING" && judged_in_shard(state, keys, i, 3) == 1) {
            victim = static_cast<int>(i);
            return true;
          }
        }
        return false;
      },
      std::chrono::seconds(300));
  ASSERT_TRUE(found) << "no task ran with one of its 2 candidates judged within 300 s; squeue:\n"
                     << run_env({"squeue", "-r"}, env).output << "\nslurmctld log:\n"
                     << tail_of(cdir / "log/slurmctld.log");
  const std::string task = job + "_" + std::to_string(victim);
  const auto cancel = run_env({"scancel", task}, env);
  ASSERT_EQ(cancel.exit_status, 0) << cancel.output;

  const fs::path out = state / "slurm" / ("task-" + std::to_string(victim) + ".out");
  const fs::path status = state / "slurm" / ("task-" + std::to_string(victim) + ".status");
  // Every task done: Slurm no longer lists the job (a requeued task would be listed again).
  const bool drained = wait_until([&] { return squeue(job, env).empty(); }, std::chrono::seconds(600));
  ASSERT_TRUE(drained) << "the array did not finish within 600 s; squeue:\n"
                       << run_env({"squeue", "-r"}, env).output << "\n"
                       << task << "'s output:\n"
                       << tail_of(out);

  // The cancelled task was interrupted, requeued itself, ran again and finished its shard.
  const std::string out_text = slurp(out);
  EXPECT_NE(out_text.find("CANCELLED"), std::string::npos) << out_text;
  EXPECT_EQ(first_line(status).rfind("completed job=" + task + " restarts=1 ", 0), 0u)
      << "status: " << first_line(status) << "\noutput:\n"
      << tail_of(out);
  EXPECT_EQ(judged_in_shard(state, keys, victim, 3), 2u);
  for (unsigned i = 0; i < 3; ++i)
    EXPECT_EQ(first_line(state / "slurm" / ("task-" + std::to_string(i) + ".status")).rfind("completed ", 0), 0u)
        << "task " << i << ": " << first_line(state / "slurm" / ("task-" + std::to_string(i) + ".status"));

  // --status reads the same back: every candidate judged, every task completed.
  std::vector<std::string> st{KJUDGE_BIN, "batch", run.string(), "--status"};
  const auto shown = run_env(st, env);
  EXPECT_EQ(shown.exit_status, 0) << shown.output;
  EXPECT_NE(shown.output.find("total: 6/6 judged; tasks: 3 completed"), std::string::npos) << shown.output;

  // PostgreSQL: one row per candidate, keyed by its batch key (the database is the fixture's own).
  const auto psql = run_env({"psql", db, "-At", "-c", "SELECT coalesce(dedup_key, '<none>') FROM evaluations"}, {});
  ASSERT_EQ(psql.exit_status, 0) << psql.output;
  std::multiset<std::string> rows;
  std::istringstream in(psql.output);
  for (std::string line; std::getline(in, line);) rows.insert(line);
  EXPECT_EQ(rows, std::multiset<std::string>(keys.begin(), keys.end())) << psql.output;

  // The same batch judged locally, without Slurm, into its own state and SQLite store.
  const fs::path local_state = test_dir() / "slurm-run-local-state";
  fs::remove_all(local_state);
  std::vector<std::string> local{KJUDGE_BIN, "batch", run.string(), "--state", local_state.string()};
  local.insert(local.end(), judge.begin(), judge.end());
  const auto loc = run_env(local, {{"KJUDGE_DB", (test_dir() / "slurm-local.db").string()}}, 600);
  ASSERT_EQ(loc.exit_status, 0) << loc.output;
  const auto on_slurm = verdicts(state);
  EXPECT_EQ(on_slurm.size(), 6u);
  EXPECT_EQ(on_slurm, verdicts(local_state));
  // Both kinds were judged: the three cheats rejected, the three honest ones passed.
  unsigned passed = 0;
  for (const auto& [k, v] : on_slurm) passed += v.rfind("ok_", 0) == 0 ? 1 : 0;
  EXPECT_EQ(passed, 3u) << ::testing::PrintToString(on_slurm);
}

}  // namespace
}  // namespace kjudge::test
