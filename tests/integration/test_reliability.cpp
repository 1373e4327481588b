// What a user sees when the statistics are thin, the input is bad, or something other than the
// candidate fails (issue "Reliability round 2"): estimates without a CI below six rounds, a
// headline that is the geometric mean of its cases, case counts that match the verdict, sizes
// checked before anything runs, the reference's failure never the candidate's verdict, outputs
// checked before the evaluation.
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cli_test_util.hpp"

namespace kjudge::test {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A copy of a suite problem in a directory of its own, its problem.toml edited by `edit`.
fs::path problem_copy(const std::string& name, const std::string& tag, const std::string& from, const std::string& to) {
  const fs::path dir = test_dir() / (name + "-" + tag);
  fs::create_directories(dir);
  const fs::path src = fs::path(KJUDGE_TEST_DATA) / ".." / "problems" / name;
  for (const auto& e : fs::directory_iterator(src))
    if (e.is_regular_file()) fs::copy_file(e.path(), dir / e.path().filename(), fs::copy_options::overwrite_existing);
  std::string spec = read_text(src / "problem.toml");
  if (!from.empty()) {
    const auto at = spec.find(from);
    if (at == std::string::npos) throw std::runtime_error("problem_copy: '" + from + "' not in " + name);
    spec.replace(at, from.size(), to);
  }
  std::ofstream(dir / "problem.toml") << spec;
  return dir;
}

// Below six rounds a median has no 95% CI: the figure is an estimate, the CI null, the verdict
// never ok_faster (one round printed "0.840x [0.840, 0.840] (95% CI ...)").
TEST(Reliability, FewRoundsGiveAnEstimateWithoutACiAndNeverFaster) {
  for (const char* rounds : {"1", "3"}) {
    const auto c = kjudge({"eval", "softmax", candidate("ok_honest_softmax.cpp"), "--rounds", rounds, "--torch", "none",
                           "--budget", "1", "--no-store"});
    ASSERT_TRUE(c.result.is_object()) << c.r.output;
    EXPECT_EQ(c.result["verdict"]["status"], "ok_not_faster") << rounds;
    EXPECT_TRUE(c.result["speedup"]["ci95"].is_null()) << c.result["speedup"].dump();
    EXPECT_TRUE(c.result["speedup"]["estimate_only"].is_string());
    for (const auto& tc : c.result["timing"]["cases"]) EXPECT_TRUE(tc["speedup"]["ci95"].is_null()) << tc.dump();
    EXPECT_NE(c.result["verdict"]["reasons"][0].get<std::string>().find("an estimate from " + std::string(rounds)),
              std::string::npos)
        << c.result["verdict"].dump();
  }
}

// The headline over several cases is the geometric mean of the cases' own medians, so it lies
// between them (it was the median of per-round geometric means: 0.118x against cases of 0.112x
// and 0.107x).
TEST(Reliability, TheHeadlineIsTheGeometricMeanOfItsCases) {
  const auto c =
      kjudge({"eval", "softmax", candidate("ok_honest_softmax.cpp"), "--torch", "none", "--budget", "1", "--no-store"});
  ASSERT_TRUE(c.result.is_object()) << c.r.output;
  const auto& cases = c.result["timing"]["cases"];
  ASSERT_GE(cases.size(), 2u);
  double log_sum = 0, lo = 1e300, hi = 0;
  for (const auto& tc : cases) {
    const double m = tc["speedup"]["median"].get<double>();
    log_sum += std::log(m);
    lo = std::min(lo, m);
    hi = std::max(hi, m);
  }
  const double head = c.result["speedup"]["median"].get<double>();
  EXPECT_NEAR(head, std::exp(log_sum / static_cast<double>(cases.size())), 1e-12 * head);
  EXPECT_GE(head, lo);
  EXPECT_LE(head, hi);
}

// A candidate rejected on a hidden case counts that case: "N of N cases pass" beside a rejection
// said the opposite of the verdict.
TEST(Reliability, CaseCountsIncludeTheCaseThatFailed) {
  const std::string cand = std::string(KJUDGE_TEST_DATA) + "/redteam/cpu/layernorm_public_shapes_only.cpp";
  const auto c = kjudge({"eval", "layernorm", cand, "--no-timing", "--no-store"});
  ASSERT_TRUE(c.result.is_object()) << c.r.output;
  ASSERT_NE(c.result["verdict"]["status"], "ok_not_faster");
  EXPECT_NE(c.r.output.find("1 fail"), std::string::npos) << c.r.output;
  // An accepted one: the stale-output probe is named apart, not counted as a case.
  const auto ok = kjudge({"eval", "softmax", candidate("ok_honest_softmax.cpp"), "--no-timing", "--no-store"});
  const std::string reason = ok.result["verdict"]["reasons"][0].get<std::string>();
  const auto n =
      reason.substr(reason.find("correct on ") + 11, reason.find(" cases") - reason.find("correct on ") - 11);
  EXPECT_NE(ok.r.output.find(n + " of " + n + " cases pass"), std::string::npos) << ok.r.output << "\n" << reason;
  EXPECT_NE(ok.r.output.find("the stale-output probe passed"), std::string::npos) << ok.r.output;
  EXPECT_NE(ok.r.output.find("not timed"), std::string::npos) << ok.r.output;
}

// M = N = 2^32 wrapped the memory estimate to 0: the reference ran for 47 s, reached 16 GB and
// crashed, and the crash was stored as the candidate's. Sizes are checked before anything runs.
TEST(Reliability, ASizeNoMachineCanHoldIsRefusedBeforeAnythingRuns) {
  const fs::path dir = problem_copy("softmax", "overflow", "[[bench.cpu]]\nsymbols = { M = 512, N = 1024 }",
                                    "[[bench.cpu]]\nsymbols = { M = 4294967296, N = 4294967296 }");
  const auto t0 = std::chrono::steady_clock::now();
  const auto c = kjudge({"eval", dir.string(), candidate("ok_honest_softmax.cpp"), "--torch", "none"});
  EXPECT_EQ(c.r.exit_status, 2) << c.r.output;
  EXPECT_NE(c.r.output.find("more than 2^64"), std::string::npos) << c.r.output;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30.0);
}

// The reference (the problem's code) crashing is not the candidate's crash: exit 2, its log, no
// verdict stored.
TEST(Reliability, TheReferencesFailureIsNeverTheCandidatesVerdict) {
  const fs::path dir = problem_copy("softmax", "crashing-reference", "", "");
  std::string ref = read_text(dir / "reference.cpp");
  // The reference aborts on the hidden cases' larger shapes.
  const std::string entry = "KJ_EXPORT int kj_run(const kj_args* a) {";
  const auto at = ref.find(entry);
  ASSERT_NE(at, std::string::npos) << ref;
  ref.insert(at + entry.size(), "\n  if (a->inputs[0].shape[0] > 64) __builtin_trap();\n");
  std::ofstream(dir / "reference.cpp") << ref;
  const auto c = kjudge(
      {"eval", dir.string(), candidate("ok_honest_softmax.cpp"), "--no-timing", "--torch", "none", "--hidden", "4"});
  EXPECT_EQ(c.r.exit_status, 2) << c.r.output;
  EXPECT_NE(c.r.output.find("the reference (the problem's own code, not the candidate) failed"), std::string::npos)
      << c.r.output;
  EXPECT_FALSE(c.result.is_object()) << "no verdict is written for a run the candidate was not judged in";
}

// A baseline (the problem's code) whose reply has another type than its request asked for is the
// problem's fault, as its crash is: exit 2, never the candidate's forged_message. The baseline here
// is the red team's token-stealing forger: on its first call it sends a complete 'ran' frame with
// its worker's token and a sequence number. A candidate's first call is its worker's second message;
// a baseline's first call is timed, after 'hello', 'time_ready' and the armed sample's 'armed', so
// the number is patched to 4 and the frame arrives, in sequence, as the reply to the warm-up's
// first 'go'. With the type compared alone (without the
// worker's role) this honest candidate was judged a hack.
TEST(Reliability, ABaselinesForgedReplyIsNeverTheCandidatesVerdict) {
  const fs::path dir = problem_copy("softmax", "forging-baseline", "", "");
  std::string forger = read_text(fs::path(KJUDGE_TEST_DATA) / "redteam" / "cpu" / "forge_token_scan_softmax.cpp");
  const std::string seq = "\\\"seq\\\":2}";
  const auto at = forger.find(seq);
  ASSERT_NE(at, std::string::npos) << forger;
  forger.replace(at, seq.size(), "\\\"seq\\\":4}");
  std::ofstream(dir / "baseline_fast.cpp") << forger;
  const auto c = kjudge(
      {"eval", dir.string(), candidate("ok_honest_softmax.cpp"), "--torch", "none", "--rounds", "3", "--budget", "1"});
  EXPECT_EQ(c.r.exit_status, 2) << c.r.output;
  EXPECT_NE(c.r.output.find("the baseline (the problem's own code, not the candidate) failed"), std::string::npos)
      << c.r.output;
  EXPECT_NE(c.r.output.find("expected 'sampled', got 'ran'"), std::string::npos) << c.r.output;
  EXPECT_FALSE(c.result.is_object()) << "no verdict is written for a run the candidate was not judged in";
}

// --json to a path that cannot be written is refused before the evaluation (it failed after the
// whole evaluation); --json - writes the document to standard output.
TEST(Reliability, OutputsAreCheckedFirstAndJsonCanGoToStandardOutput) {
  const auto t0 = std::chrono::steady_clock::now();
  command_options o;
  o.timeout_seconds = 120;
  o.extra_env["KJUDGE_DB"] = (test_dir() / "store.db").string();
  const auto bad = run_command(
      {KJUDGE_BIN, "eval", "softmax", candidate("ok_honest_softmax.cpp"), "--json", "/proc/no-such-dir/r.json", "-q"},
      o);
  EXPECT_EQ(bad.exit_status, 2) << bad.output;
  EXPECT_NE(bad.output.find("--json /proc/no-such-dir/r.json"), std::string::npos) << bad.output;
  EXPECT_EQ(bad.output.find("verdict"), std::string::npos) << "refused before judging: " << bad.output;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
  const fs::path out = test_dir() / "stdout-json.txt";
  const auto good =
      run_command({"sh", "-c",
                   std::string("exec '") + KJUDGE_BIN + "' eval softmax '" + candidate("ok_honest_softmax.cpp") +
                       "' --no-timing --no-store -q --json - > '" + out.string() + "'"},
                  o);
  EXPECT_EQ(good.exit_status, 0) << good.output;
  const auto doc = nlohmann::json::parse(read_text(out), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << read_text(out);
  expect_valid_result(out);
  EXPECT_EQ(doc["verdict"]["status"], "ok_not_faster");
  EXPECT_NE(good.output.find("verdict:"), std::string::npos) << "the summary goes to standard error";
}

// A python without torch, where a PyTorch baseline was asked for, is the user's environment: exit
// 2, saying how to do without (it was an internal error, exit 3).
TEST(Reliability, AMissingTorchIsAUsageErrorThatSaysHowToDoWithout) {
  const std::string python = "/usr/bin/python3";
  if (run_command({python, "-c", "import torch"}).exit_status == 0)
    GTEST_SKIP() << python << " has torch: no python without it to judge with";
  const auto c =
      kjudge({"eval", "softmax", candidate("ok_honest_softmax.cpp"), "--torch", "torch:eager", "--rounds", "2"}, 120,
             {{"KJUDGE_PYTHON", python}});
  EXPECT_EQ(c.r.exit_status, 2) << c.r.output;
  EXPECT_NE(c.r.output.find("cannot import torch"), std::string::npos) << c.r.output;
  EXPECT_NE(c.r.output.find("--torch none"), std::string::npos) << c.r.output;
  EXPECT_FALSE(c.result.is_object()) << "no verdict for a run the candidate was not judged in";
}

// --device cuda without a GPU is the user's mistake (exit 2, said plainly), not an internal error.
TEST(Reliability, CudaWithoutAGpuIsAUsageError) {
  struct stat st {};
  if (::stat("/dev/nvidia0", &st) == 0 || ::stat("/proc/driver/nvidia/version", &st) == 0)
    GTEST_SKIP() << "this machine has a GPU";
  const auto c = kjudge({"eval", "softmax", candidate("ok_honest_softmax.cpp"), "--device", "cuda"});
  EXPECT_EQ(c.r.exit_status, 2) << c.r.output;
  EXPECT_NE(c.r.output.find("no NVIDIA GPU"), std::string::npos) << c.r.output;
}

}  // namespace
}  // namespace kjudge::test

namespace kjudge::test {
namespace {

// A cached cpu ceiling measured while other work ran is measured again before it is used, and one
// that a candidate exceeds is measured again before any fraction is reported (an honest ReLU read
// 109% of a ceiling measured once under load). The load is recorded with every measurement.
TEST(Reliability, ACeilingMeasuredUnderLoadOrExceededIsMeasuredAgain) {
  for (const bool under_load : {true, false}) {
    const fs::path cache = test_dir() / (under_load ? "ceiling-loaded" : "ceiling-low");
    fs::create_directories(cache);
    const auto probe = kjudge({"doctor"}, 120, {{"KJUDGE_CACHE", cache.string()}});
    ASSERT_EQ(probe.r.exit_status, 0) << probe.r.output;
    auto ceil = nlohmann::json::parse(read_text(cache / "ceilings-cpu.json"));
    ASSERT_TRUE(ceil["details"]["load"]["other_cores"].is_number()) << ceil.dump();
    // A figure far below the truth: under load it is discarded at once; otherwise the candidate's
    // achieved bandwidth exceeds it and it is measured again.
    ceil["copy_gbps"] = 0.01;
    ceil["details"]["load"]["other_cores"] = under_load ? 1.5 : 0.0;
    std::ofstream(cache / "ceilings-cpu.json") << ceil.dump();
    const auto c = kjudge(
        {"eval", "softmax", candidate("ok_honest_softmax.cpp"), "--torch", "none", "--budget", "1", "--no-store"}, 300,
        {{"KJUDGE_CACHE", cache.string()}});
    ASSERT_TRUE(c.result.is_object()) << c.r.output;
    EXPECT_GT(c.result["ceilings"]["copy_gbps"].get<double>(), 0.5) << c.result["ceilings"].dump();
    for (const auto& tc : c.result["timing"]["cases"])
      EXPECT_LT(tc["achieved"]["fraction_of_ceiling"].get<double>(), 1.5) << tc.dump();
    EXPECT_GT(nlohmann::json::parse(read_text(cache / "ceilings-cpu.json"))["copy_gbps"].get<double>(), 0.5);
  }
}

// The compute ceiling a case is measured against follows its dtype and the problem's TF32
// permission (f32 matmul: TF32 where permitted, FP32 under --no-tf32), from the device's measured
// ceilings; the fraction is the case's achieved GFLOP/s over it. The cpu doctor measures no
// compute ceiling, so one is written into the cache, far from the copy figures it keeps.
TEST(Reliability, TheComputeCeilingFollowsTheDtypeAndTheTf32Permission) {
  const fs::path cache = test_dir() / "compute-ceiling";
  fs::create_directories(cache);
  const auto probe = kjudge({"doctor"}, 120, {{"KJUDGE_CACHE", cache.string()}});
  ASSERT_EQ(probe.r.exit_status, 0) << probe.r.output;
  auto ceil = nlohmann::json::parse(read_text(cache / "ceilings-cpu.json"));
  ceil["fp32_gflops"] = 1000.0;
  ceil["tf32_gflops"] = 8000.0;
  ceil["bf16_gflops"] = 16000.0;
  // Recorded as measured on a quiet machine, so that it is used as it is: a cpu ceiling measured
  // under load is measured again (copy only), which the test above covers.
  ceil["details"]["load"]["other_cores"] = 0.0;
  std::ofstream(cache / "ceilings-cpu.json") << ceil.dump();
  const std::string matmul = std::string(KJUDGE_SOURCE_DIR) + "/examples/matmul_bias_relu/naive.cpp";
  for (const bool tf32 : {true, false}) {
    std::vector<std::string> args{"eval", "matmul_bias_relu", matmul, "--torch", "none", "--budget", "1", "--no-store"};
    if (!tf32) args.emplace_back("--no-tf32");
    const auto c = kjudge(args, 300, {{"KJUDGE_CACHE", cache.string()}});
    ASSERT_TRUE(c.result.is_object()) << c.r.output;
    ASSERT_FALSE(c.result["timing"]["cases"].empty()) << c.r.output;
    for (const auto& tc : c.result["timing"]["cases"]) {
      const auto& a = tc["achieved"];
      ASSERT_TRUE(a["ceiling_gflops"].is_number()) << a.dump();
      EXPECT_EQ(a["ceiling_gflops"].get<double>(), tf32 ? 8000.0 : 1000.0) << a.dump();
      EXPECT_NEAR(a["fraction_of_compute_ceiling"].get<double>(),
                  a["gflops"].get<double>() / a["ceiling_gflops"].get<double>(), 1e-12)
          << a.dump();
    }
  }
}

}  // namespace
}  // namespace kjudge::test
