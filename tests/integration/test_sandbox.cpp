// The sandbox and the controller's hold on what a worker starts, through the real CLI: nothing
// outlives kjudge killed with SIGKILL (its guardian, core/guardian.hpp), an imported problem
// changed after import is refused (problem/integrity.hpp), and what a candidate's processes did is
// in the result.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_test_util.hpp"

namespace kjudge::test {
namespace {

namespace fs = std::filesystem;

bool alive(pid_t pid) {
  if (::kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  return close == std::string::npos || line.size() < close + 3 || line[close + 2] != 'Z';
}

// The children of a process (its threads' children).
std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& t : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream in(t.path() / "children");
    for (pid_t c = 0; in >> c;) out.push_back(c);
  }
  return out;
}

TEST(Sandbox, KillingTheControllerLeavesNoWorkerAndNoScratch) {
  const fs::path cache = test_dir() / "kill9-cache";
  const fs::path scratch = cache / "scratch";
  const std::string db = (test_dir() / "kill9.db").string();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setpgid(0, 0);
    ::setenv("KJUDGE_CACHE", cache.c_str(), 1);
    ::setenv("KJUDGE_DB", db.c_str(), 1);
    ::setenv("KJUDGE_TORCH_BASELINES", "none", 1);
    const std::string cand = std::string(KJUDGE_TEST_DATA) + "/../examples/softmax/naive.cpp";
    ::execl(KJUDGE_BIN, KJUDGE_BIN, "eval", "softmax", cand.c_str(), "--budget", "120", "-q", "--no-store",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Wait until the timing phase has workers (children other than the guardian) and a scratch.
  std::vector<pid_t> workers;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    workers.clear();
    for (const pid_t c : children_of(pid)) {
      std::ifstream comm("/proc/" + std::to_string(c) + "/comm");
      std::string name;
      std::getline(comm, name);
      if (name.rfind("kjudge-worker", 0) == 0) workers.push_back(c);
    }
    std::error_code ec;
    if (workers.size() >= 3 && fs::exists(scratch, ec) && !fs::is_empty(scratch, ec)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(workers.size(), 3u) << "the evaluation never reached its timing phase";
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  // The guardian kills every worker group and removes the scratch once kjudge is gone.
  bool clean = false;
  for (int i = 0; i < 100 && !clean; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    clean = true;
    for (const pid_t w : workers) clean = clean && !alive(w);
    std::error_code ec;
    clean = clean && (!fs::exists(scratch, ec) || fs::is_empty(scratch, ec));
  }
  for (const pid_t w : workers) EXPECT_FALSE(alive(w)) << "worker " << w << " outlived kjudge";
  std::error_code ec;
  EXPECT_TRUE(!fs::exists(scratch, ec) || fs::is_empty(scratch, ec)) << "scratch left in " << scratch;
}

// A candidate's worker writes into a private tmpfs of --scratch-limit MiB: the candidate that fills
// it meets ENOSPC there, and the disk that the baselines' compiles, the cache and the store share
// keeps its room. The same candidate without the bound writes past 64 MiB and so writes zeros,
// which shows that the bound, not the test machine's disk, stopped it.
TEST(Sandbox, ACandidateCannotWritePastItsScratchLimit) {
  const std::vector<std::string> base{"eval", "softmax", candidate("fills_scratch_softmax.cpp"), "--no-timing"};
  auto with = [&](const char* mib) {
    auto a = base;
    a.insert(a.end(), {"--scratch-limit", mib});
    return kjudge(a, 300, {{"KJUDGE_TORCH_BASELINES", "none"}});
  };
  const auto bounded = with("32");
  EXPECT_EQ(bounded.r.exit_status, 0) << bounded.r.output;
  EXPECT_EQ(status_of(bounded).rfind("ok_", 0), 0u) << status_of(bounded);
  ASSERT_TRUE(bounded.result.is_object());
  const std::string ns = bounded.result["env"]["sandbox"].value("namespaces", "");
  EXPECT_NE(ns.find("scratch_quota=" + std::to_string(32u << 20)), std::string::npos) << ns;
  const auto unbounded = with("0");
  EXPECT_EQ(status_of(unbounded), "wrong_result") << unbounded.r.output;
}

TEST(Sandbox, AnImportedProblemChangedAfterImportIsRefused) {
  const fs::path out = test_dir() / "imported-changed";
  const std::string file = std::string(KJUDGE_TEST_DATA) + "/redteam/python/kernelbench/1_ScaledTanh.py";
  const cli_run imported = kjudge({"import", "kernelbench", file, "--out", out.string()}, 300);
  ASSERT_EQ(imported.r.exit_status, 0) << imported.r.output;
  const fs::path dir = out / "kb" / "kernelbench" / "1_ScaledTanh";
  ASSERT_TRUE(fs::exists(dir / "kjudge-manifest.json")) << imported.r.output;
  const std::string model = (dir / "model.py").string();
  // As it was imported: judged (the reference against itself).
  const cli_run ok = kjudge({"eval", dir.string(), model, "--no-timing", "--no-store"}, 300);
  EXPECT_EQ(ok.r.exit_status, 0) << ok.r.output;
  // Rewritten afterwards (what a candidate that ran outside the sandbox did): refused, exit 2.
  fs::permissions(dir / "model.py", fs::perms::owner_write, fs::perm_options::add);
  std::ofstream(dir / "model.py", std::ios::app) << "\n# changed\n";
  const cli_run changed = kjudge({"eval", dir.string(), model, "--no-timing", "--no-store"}, 300);
  EXPECT_EQ(changed.r.exit_status, 2) << changed.r.output;
  EXPECT_NE(changed.r.output.find("model.py changed since the problem was imported"), std::string::npos)
      << changed.r.output;
}

}  // namespace
}  // namespace kjudge::test
