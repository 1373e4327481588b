// `kjudge batch` end to end on CPU candidates from examples/ (honest and cheating): killed with
// SIGKILL after its first result, rerun, every candidate judged exactly once, the result files
// valid kjudge.result/1 documents, and eval_results.json what they say.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "cli_test_util.hpp"
#include "core/verdict_status.hpp"
#include "judge/python_parties.hpp"
#include "spawn_util.hpp"
#include "store/store.hpp"

namespace kjudge::test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const fs::path examples = fs::path(KJUDGE_TEST_DATA) / ".." / "examples";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Starts `kjudge ARGS` without waiting, output to `log`.
pid_t spawn(const std::vector<std::string>& args, const fs::path& log) {
  std::vector<std::string> argv{KJUDGE_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return spawn_command(argv, log, {{"KJUDGE_DB", (test_dir() / "store.db").string()}});
}

std::vector<fs::path> result_files(const fs::path& state) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(state / "results", ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".json" && it->path().filename().string()[0] != '.')
      out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Batch, KillNineThenRerunJudgesEachCandidateExactlyOnce) {
  const fs::path run = test_dir() / "batch-run";
  fs::remove_all(run);
  fs::create_directories(run / "softmax");
  const std::vector<std::string> names{"cheat_no_max.cpp", "fast.cpp", "naive.cpp"};
  for (const auto& n : names) fs::copy_file(examples / "softmax" / n, run / "softmax" / n);
  const std::vector<std::string> args{"batch", run.string(), "--budget", "0.3", "--rounds", "3", "--hidden", "4", "-q"};

  const pid_t pid = spawn(args, test_dir() / "batch-first.log");
  ASSERT_GT(pid, 0);
  const fs::path state = run / ".kjudge-batch";
  bool first = false;
  for (int i = 0; i < 600 && !first; ++i) {
    first = !result_files(state).empty();
    if (!first) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(first) << slurp(test_dir() / "batch-first.log");
  const auto before = result_files(state);
  ASSERT_LT(before.size() + 1, names.size()) << "too few candidates left to interrupt";
  std::map<fs::path, fs::file_time_type> mtimes;
  for (const auto& f : before) mtimes[f] = fs::last_write_time(f);

  // SIGINT (Ctrl-C) once one more result is written: exit 130, nothing half-written.
  const pid_t pid2 = spawn(args, test_dir() / "batch-sigint.log");
  ASSERT_GT(pid2, 0);
  bool more = false;
  for (int i = 0; i < 600 && !more; ++i) {
    more = result_files(state).size() > before.size();
    if (!more) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(pid2, SIGINT);
  ::waitpid(pid2, &status, 0);
  ASSERT_TRUE(more) << slurp(test_dir() / "batch-sigint.log");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130) << status << slurp(test_dir() / "batch-sigint.log");
  EXPECT_NE(slurp(test_dir() / "batch-sigint.log").find("interrupted; rerun the same command"), std::string::npos);
  const std::size_t judged_before = result_files(state).size();
  for (const auto& f : result_files(state)) mtimes.emplace(f, fs::last_write_time(f));

  const auto second = kjudge(args, 300);
  ASSERT_EQ(second.r.exit_status, 0) << second.r.output;
  // The rerun judged only what had no result: its own count says so.
  EXPECT_NE(second.r.output.find(std::to_string(names.size() - judged_before) + " of 3 judged now, " +
                                 std::to_string(judged_before) + " before"),
            std::string::npos)
      << second.r.output;
  const auto after = result_files(state);
  ASSERT_EQ(after.size(), names.size());
  for (const auto& [f, t] : mtimes) EXPECT_EQ(fs::last_write_time(f), t) << f << " was judged again";

  const json eval_results = json::parse(slurp(run / "eval_results.json"));
  ASSERT_TRUE(eval_results.contains("softmax")) << eval_results.dump();
  ASSERT_EQ(eval_results["softmax"].size(), names.size());
  std::map<std::string, std::string> status_of;
  for (const auto& f : after) {
    const json doc = read_result(f);  // validates against docs/result-schema.json
    const std::string key = doc["batch"]["key"];
    EXPECT_EQ(f.string(), (state / "results" / (key + ".json")).string());
    status_of[doc["batch"]["candidate"]] = doc["verdict"]["status"];
    int matches = 0;
    for (const auto& e : eval_results["softmax"]) {
      if (e["kjudge"]["key"] != key) continue;
      ++matches;
      EXPECT_EQ(e["kjudge"]["status"], doc["verdict"]["status"]);
      EXPECT_EQ(e["correctness"].get<bool>(), doc["verdict"]["status"].get<std::string>().rfind("ok_", 0) == 0);
    }
    EXPECT_EQ(matches, 1) << key;
  }
  EXPECT_EQ(status_of["softmax/cheat_no_max.cpp"], "wrong_result");
  EXPECT_EQ(status_of["softmax/naive.cpp"].rfind("ok_", 0), 0u) << status_of["softmax/naive.cpp"];
  EXPECT_EQ(status_of["softmax/fast.cpp"].rfind("ok_", 0), 0u) << status_of["softmax/fast.cpp"];
  const json fast = json::parse(slurp(run / "eval_results.fast_p.json"));
  EXPECT_EQ(fast["n"], 3);
  EXPECT_EQ(fast["correct"], 2);
  EXPECT_NE(second.r.output.find("fast_p against"), std::string::npos) << second.r.output;

  // The store holds one row per candidate key, whatever the kills did.
  const std::string batch_id = json::parse(slurp(state / "batch.json"))["batch_id"];
  const auto keys = store(test_dir() / "store.db").keys_with_prefix(batch_id + "/");
  EXPECT_EQ(keys.size(), names.size());
  for (const auto& n : names)
    EXPECT_EQ(std::count(keys.begin(), keys.end(), batch_id + "/softmax/softmax/" + n), 1) << n;

  // A third run judges nothing.
  const auto third = kjudge(args, 120);
  ASSERT_EQ(third.r.exit_status, 0) << third.r.output;
  EXPECT_NE(third.r.output.find("0 of 3 judged now, 3 before"), std::string::npos) << third.r.output;
  EXPECT_EQ(result_files(state).size(), names.size());
  for (const auto& f : after) EXPECT_EQ(fs::last_write_time(f), mtimes.count(f) ? mtimes[f] : fs::last_write_time(f));
}

// KernelBench's layout: generated kernels named level_<L>_problem_<P>_sample_<S>_kernel.py matched
// to an imported level, one that matches no problem said and left out; --tolerance kernelbench
// applies atol = rtol = 1e-2 and reports the problem's own verdict beside.
TEST(Batch, KernelBenchLayoutWithKernelBenchTolerance) {
  ::setenv("KJUDGE_WORKER_PY", (fs::path(KJUDGE_BIN).parent_path() / "kjudge-worker-py").c_str(), 1);
  if (const python_setup ps = find_python_setup(); !ps.unavailable.empty()) GTEST_SKIP() << ps.unavailable;
  const fs::path py = fs::path(KJUDGE_TEST_DATA) / "python";
  const fs::path problems = test_dir() / "batch-kb-problems", run = test_dir() / "batch-kb-run";
  fs::remove_all(run);
  fs::create_directories(run);
  const auto imp =
      kjudge({"import", "kernelbench", (py / "kernelbench" / "level1").string(), "--out", problems.string()});
  ASSERT_EQ(imp.r.exit_status, 0) << imp.r.output;
  const std::map<std::string, std::string> files{{"level_1_problem_1_sample_0_kernel.py", "kb_leaky_ok.py"},
                                                 {"level_1_problem_1_sample_1_kernel.py", "kb_leaky_positive_only.py"},
                                                 {"level_1_problem_9_sample_0_kernel.py", "kb_leaky_ok.py"}};
  for (const auto& [to, from] : files) fs::copy_file(py / "candidates" / from, run / to);
  const auto r = kjudge({"batch", run.string(), "--problems", problems.string(), "--tolerance", "kernelbench",
                         "--no-timing", "--hidden", "4", "-q"},
                        600);
  ASSERT_EQ(r.r.exit_status, 0) << r.r.output;
  EXPECT_NE(r.r.output.find("level_1_problem_9_sample_0_kernel.py: no problem 9_*"), std::string::npos) << r.r.output;
  const json e = json::parse(slurp(run / "eval_results.json"));
  ASSERT_TRUE(e.contains("1")) << e.dump();
  EXPECT_FALSE(e.contains("9"));
  ASSERT_EQ(e["1"].size(), 2u);
  std::map<int, json> by_sample;
  for (const auto& s : e["1"]) by_sample[s["sample_id"].get<int>()] = s;
  EXPECT_TRUE(by_sample[0]["correctness"].get<bool>()) << by_sample[0].dump();
  EXPECT_FALSE(by_sample[1]["correctness"].get<bool>()) << by_sample[1].dump();
  for (const auto& f : result_files(run / ".kjudge-batch")) {
    const json doc = read_result(f);
    EXPECT_DOUBLE_EQ(doc["tolerance"]["atol"].get<double>(), 1e-2) << f;
    EXPECT_DOUBLE_EQ(doc["tolerance"]["rtol"].get<double>(), 1e-2) << f;
    EXPECT_EQ(doc["batch"]["tolerance"], "kernelbench");
    ASSERT_TRUE(doc["batch"].contains("own_tolerance")) << doc["batch"].dump();
    const json& own = doc["batch"]["own_tolerance"];
    ASSERT_TRUE(own.contains("status")) << own.dump();
    EXPECT_LT(own["tolerance"]["atol"].get<double>(), 1e-2) << own.dump();
    // The positive-only cheat is wrong under either tolerance; the honest ones right under both.
    EXPECT_EQ(is_ok_status(own["status"].get<std::string>()), is_ok_status(doc["verdict"]["status"].get<std::string>()))
        << doc["batch"].dump();
  }
}

// --devices runs each evaluation in a child `kjudge batch ... --one KEY`: on the cpu only without
// timing, here two at a time.
TEST(Batch, DevicesRunChildrenAndEveryCandidateGetsOneResult) {
  const fs::path run = test_dir() / "batch-children";
  fs::remove_all(run);
  fs::create_directories(run / "softmax");
  const std::vector<std::string> names{"cheat_no_max.cpp", "fast.cpp", "naive.cpp"};
  for (const auto& n : names) fs::copy_file(examples / "softmax" / n, run / "softmax" / n);
  const auto r = kjudge({"batch", run.string(), "--no-timing", "--hidden", "4", "--devices", "0,1", "-q"}, 300);
  ASSERT_EQ(r.r.exit_status, 0) << r.r.output;
  EXPECT_NE(r.r.output.find("on 2 device(s)"), std::string::npos) << r.r.output;
  EXPECT_NE(r.r.output.find("(device 0)"), std::string::npos) << r.r.output;
  EXPECT_NE(r.r.output.find("(device 1)"), std::string::npos) << r.r.output;
  const auto files = result_files(run / ".kjudge-batch");
  ASSERT_EQ(files.size(), names.size());
  std::map<std::string, std::string> status_of;
  for (const auto& f : files) {
    const json doc = read_result(f);
    status_of[doc["batch"]["candidate"]] = doc["verdict"]["status"];
    EXPECT_EQ(doc["batch"]["outcome"], "judged");
  }
  EXPECT_EQ(status_of["softmax/cheat_no_max.cpp"], "wrong_result");
  EXPECT_EQ(status_of["softmax/naive.cpp"].rfind("ok_", 0), 0u) << status_of["softmax/naive.cpp"];
}

// --retry: a result that is not a judgement (here a judge fault: the problem's reference does not
// compile) is judged again once the cause is fixed; without it, never; a judgement, never.
TEST(Batch, RetryJudgesAgainOnlyTheResultsThatAreNotJudgements) {
  const fs::path problems = test_dir() / "batch-retry-problems", run = test_dir() / "batch-retry-run";
  fs::remove_all(problems);
  fs::remove_all(run);
  const fs::path suite = fs::path(KJUDGE_TEST_DATA) / ".." / "problems";
  // Under a directory of their own: a suite name (softmax) would be the suite's problem.
  for (const char* p : {"softmax", "rmsnorm"}) {
    fs::create_directories(problems / "retry" / p);
    fs::copy(suite / p, problems / "retry" / p, fs::copy_options::recursive);
  }
  std::ofstream(problems / "retry" / "softmax" / "reference.cpp", std::ios::app) << "\nthis line does not compile;\n";
  for (const char* p : {"softmax", "rmsnorm"}) {
    fs::create_directories(run / "retry" / p);
    fs::copy_file(examples / p / "naive.cpp", run / "retry" / p / "naive.cpp");
  }
  const std::vector<std::string> args{"batch", run.string(), "--problems", problems.string(), "--no-timing", "-q"};
  const auto outcomes = [&] {
    std::map<std::string, std::string> out;
    for (const auto& f : result_files(run / ".kjudge-batch")) {
      const json doc = read_result(f);
      out[doc["batch"]["candidate"]] =
          doc["batch"]["outcome"].get<std::string>() + " " + doc["verdict"]["status"].get<std::string>();
    }
    return out;
  };
  const auto first = kjudge(args, 300);
  EXPECT_EQ(first.r.exit_status, 3) << first.r.output;  // a judge fault is recorded
  const auto after_first = outcomes();
  ASSERT_EQ(after_first.size(), 2u) << first.r.output;
  EXPECT_EQ(after_first.at("retry/softmax/naive.cpp").rfind("judge_fault ", 0), 0u)
      << after_first.at("retry/softmax/naive.cpp");
  EXPECT_EQ(after_first.at("retry/rmsnorm/naive.cpp").rfind("judged ok_", 0), 0u)
      << after_first.at("retry/rmsnorm/naive.cpp");
  const auto rmsnorm_written = [&] {
    for (const auto& f : result_files(run / ".kjudge-batch"))
      if (read_result(f)["batch"]["candidate"] == "retry/rmsnorm/naive.cpp") return fs::last_write_time(f);
    return fs::file_time_type{};
  };
  const auto rmsnorm_time = rmsnorm_written();

  fs::copy_file(suite / "softmax" / "reference.cpp", problems / "retry" / "softmax" / "reference.cpp",
                fs::copy_options::overwrite_existing);
  const auto plain = kjudge(args, 300);
  EXPECT_EQ(plain.r.exit_status, 3) << plain.r.output;  // the shard still holds a judge fault
  EXPECT_NE(plain.r.output.find("2 judged before, 0 to judge"), std::string::npos) << plain.r.output;
  EXPECT_EQ(outcomes(), after_first);

  std::vector<std::string> retry = args;
  retry.push_back("--retry");
  const auto again = kjudge(retry, 300);
  EXPECT_EQ(again.r.exit_status, 0) << again.r.output;
  EXPECT_NE(again.r.output.find("1 judged before, 1 to judge"), std::string::npos) << again.r.output;
  const auto after_retry = outcomes();
  ASSERT_EQ(after_retry.size(), 2u);
  EXPECT_EQ(after_retry.at("retry/softmax/naive.cpp").rfind("judged ok_", 0), 0u)
      << after_retry.at("retry/softmax/naive.cpp");
  EXPECT_EQ(after_retry.at("retry/rmsnorm/naive.cpp"), after_first.at("retry/rmsnorm/naive.cpp"));
  EXPECT_EQ(rmsnorm_written(), rmsnorm_time) << "a judgement was judged again";
}

TEST(Batch, DevicesAreRefusedOnTheCpu) {
  const fs::path run = test_dir() / "batch-devices";
  fs::create_directories(run / "softmax");
  fs::copy_file(examples / "softmax" / "naive.cpp", run / "softmax" / "naive.cpp",
                fs::copy_options::overwrite_existing);
  const auto r = kjudge({"batch", run.string(), "--devices", "0,1", "-q"});
  EXPECT_EQ(r.r.exit_status, 2) << r.r.output;
  EXPECT_FALSE(fs::exists(run / ".kjudge-batch" / "results")) << "refused, yet something was judged";
  EXPECT_NE(r.r.output.find("--devices: only with --device cuda, or on the cpu with --no-timing"), std::string::npos)
      << r.r.output;
}

}  // namespace
}  // namespace kjudge::test
