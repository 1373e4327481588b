// The command line's contract (DESIGN.md §2.3): subcommands, bad input exits 2 with a message
// naming the file or value, the store and history.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>

#include "cli_test_util.hpp"

namespace kjudge::test {
namespace {

TEST(Cli, ListShowsTheSuite) {
  const auto c = kjudge({"list"});
  EXPECT_EQ(c.r.exit_status, 0);
  for (const char* p : {"gelu_bias_residual", "layernorm", "rmsnorm", "softmax", "matmul_bias_relu", "batched_qr"})
    EXPECT_NE(c.r.output.find(p), std::string::npos) << p;
}

// `kjudge demo` is what `make demo` runs: every example of every suite problem, each with its
// expected verdict (cheat_* rejected, the others correct). Folders of examples/ that are not
// problems (templates/, proposers/) are not judged: a template once made the demo exit 2.
TEST(Cli, DemoJudgesEveryExampleOfTheSuite) {
  const auto c = kjudge({"demo", "--device", "cpu", "--no-timing", "-q"}, 900);
  EXPECT_EQ(c.r.exit_status, 0) << c.r.output;
  for (const char* p : {"gelu_bias_residual/", "layernorm/", "rmsnorm/", "softmax/", "matmul_bias_relu/", "batched_qr/"})
    EXPECT_NE(c.r.output.find(p), std::string::npos) << p << "\n" << c.r.output;
  EXPECT_EQ(c.r.output.find("templates/"), std::string::npos) << c.r.output;
  EXPECT_EQ(c.r.output.find("unknown problem"), std::string::npos) << c.r.output;
}

TEST(Cli, ShowGivesSignatureAndCost) {
  const auto c = kjudge({"show", "layernorm"});
  EXPECT_EQ(c.r.exit_status, 0);
  EXPECT_NE(c.r.output.find("x[M,N]"), std::string::npos) << c.r.output;
  EXPECT_NE(c.r.output.find("eps"), std::string::npos);
  EXPECT_NE(c.r.output.find("bytes"), std::string::npos);
}

TEST(Cli, UnknownProblemExits2AndNamesIt) {
  const auto c = kjudge({"eval", "no_such_problem", candidate("ok_honest_softmax.cpp")});
  EXPECT_EQ(c.r.exit_status, 2);
  EXPECT_NE(c.r.output.find("no_such_problem"), std::string::npos) << c.r.output;
  EXPECT_NE(c.r.output.find("softmax"), std::string::npos) << "should list the known problems";
}

TEST(Cli, MissingCandidateExits2AndNamesThePath) {
  const auto c = kjudge({"eval", "softmax", "/nonexistent/cand.cpp"});
  EXPECT_EQ(c.r.exit_status, 2);
  EXPECT_NE(c.r.output.find("/nonexistent/cand.cpp"), std::string::npos) << c.r.output;
}

TEST(Cli, UnknownDtypeExits2) {
  const auto c = kjudge({"eval", "softmax", candidate("ok_honest_softmax.cpp"), "--dtype", "f8"});
  EXPECT_EQ(c.r.exit_status, 2);
  EXPECT_NE(c.r.output.find("f8"), std::string::npos) << c.r.output;
}

TEST(Cli, UnknownFlagExits2) {
  const auto c = kjudge({"eval", "softmax", candidate("ok_honest_softmax.cpp"), "--fastest-please"});
  EXPECT_EQ(c.r.exit_status, 2);
}

TEST(Cli, MalformedSpecExits2WithFileAndLine) {
  const auto dir = test_dir() / "badspec";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "problem.toml") << "name = \"bad\"\ndescription = \"x\"\ndtypes = [\"f32\"]\nfrobnicate = 3\n";
  const auto c = kjudge({"eval", dir.string(), candidate("ok_honest_softmax.cpp")});
  EXPECT_EQ(c.r.exit_status, 2);
  EXPECT_NE(c.r.output.find("problem.toml:"), std::string::npos) << c.r.output;
}

TEST(Cli, HelpTellsTheSubcommands) {
  const auto c = kjudge({"--help"});
  EXPECT_EQ(c.r.exit_status, 0);
  for (const char* s : {"eval", "validate", "history", "list", "show", "rules"})
    EXPECT_NE(c.r.output.find(s), std::string::npos) << s;
}

// `kjudge --help` names every KJUDGE_* variable that the sources read or set (a string literal
// "KJUDGE_X" or "KJUDGE_X=... in src/, the help's own table aside), and names none that they do
// not: a switch that changes what the judge does cannot hide from the help, and the help lists
// no variable that no longer does anything.
TEST(Cli, HelpNamesEveryEnvironmentVariableTheSourcesRead) {
  const auto c = kjudge({"--help"});
  ASSERT_EQ(c.r.exit_status, 0) << c.r.output;
  ASSERT_NE(c.r.output.find("Environment:"), std::string::npos) << c.r.output;
  const std::regex literal(R"re("(KJUDGE_[A-Z0-9_]+)["=])re");
  std::set<std::string> in_sources;
  const std::filesystem::path src = std::filesystem::path(KJUDGE_SOURCE_DIR) / "src";
  for (const auto& e : std::filesystem::recursive_directory_iterator(src)) {
    const auto ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".cu" && ext != ".py")) continue;
    if (e.path().stem() == "environment" && e.path().parent_path().filename() == "cli") continue;
    std::ifstream in(e.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (std::sregex_iterator m(text.begin(), text.end(), literal), end; m != end; ++m) in_sources.insert((*m)[1]);
  }
  // The control: the scan finds what is known to be read (the store's path, an experiment switch).
  ASSERT_TRUE(in_sources.count("KJUDGE_DB")) << "the scan of " << src << " found nothing";
  ASSERT_TRUE(in_sources.count("KJUDGE_CANDIDATE_WARM_BATCH"));
  std::set<std::string> in_help;
  const std::regex word(R"(\b(KJUDGE_[A-Z0-9_]+))");
  for (std::sregex_iterator m(c.r.output.begin(), c.r.output.end(), word), end; m != end; ++m) in_help.insert((*m)[1]);
  for (const auto& name : in_sources)
    EXPECT_TRUE(in_help.count(name)) << name << " is read or set in src/ but not in --help";
  for (const auto& name : in_help)
    EXPECT_TRUE(in_sources.count(name)) << name << " is in --help but nothing in src/ reads or sets it";
}

TEST(Cli, ResultsAreStoredAndShownByHistory) {
  const auto db = (test_dir() / "history.db").string();
  const auto e = kjudge({"eval", "softmax", candidate("wrong_softmax_off_by_scale.cpp"), "--no-timing", "--db", db});
  EXPECT_EQ(e.r.exit_status, 1);
  const auto h = kjudge({"history", "softmax", "--db", db});
  EXPECT_EQ(h.r.exit_status, 0);
  EXPECT_NE(h.r.output.find("wrong_result"), std::string::npos) << h.r.output;
  EXPECT_NE(h.r.output.find("wrong_softmax_off_by_scale.cpp"), std::string::npos) << h.r.output;
}

TEST(Cli, BadInputIsNotStored) {
  const auto db = (test_dir() / "badinput.db").string();
  const auto e = kjudge({"eval", "softmax", candidate("no_kj_run_softmax.cpp"), "--no-timing", "--db", db});
  EXPECT_EQ(e.r.exit_status, 2);
  const auto h = kjudge({"history", "softmax", "--db", db});
  EXPECT_NE(h.r.output.find("no evaluations"), std::string::npos) << h.r.output;
}

TEST(Cli, ResultDocumentFollowsTheSchema) {
  const auto c = kjudge({"eval", "rmsnorm", std::string(KJUDGE_SOURCE_DIR) + "/examples/rmsnorm/naive.cpp", "--budget", "1", "--hidden", "4"});
  ASSERT_TRUE(c.result.is_object()) << c.r.output;
  for (const char* k : {"schema", "problem", "candidate", "device", "verdict", "cases", "timing", "speedup", "baselines", "memory", "env"})
    EXPECT_TRUE(c.result.contains(k)) << k;
  EXPECT_EQ(c.result["schema"], "kjudge.result/1");
  EXPECT_EQ(c.result["candidate"]["sha256"].get<std::string>().size(), 64u);
  EXPECT_TRUE(c.result["speedup"]["ci95"].is_array());
  EXPECT_EQ(c.result["timing"]["mode"], "cold");
}

// A case larger than the machine's memory is refused with the figures (exit 2), not left to the
// kernel's OOM killer (seen on the H200 with KernelBench's 7.5 GB InstanceNorm input).
TEST(Cli, CaseLargerThanHostMemoryIsRefusedWithTheFigures) {
  const auto dir = test_dir() / "softmax_huge";
  std::filesystem::create_directories(dir);
  const std::filesystem::path src = std::filesystem::path(KJUDGE_TEST_DATA) / ".." / "problems" / "softmax";
  for (const char* f : {"reference.cpp", "reference.py", "reference.cu", "baseline_fast.cpp"})
    std::filesystem::copy_file(src / f, dir / f, std::filesystem::copy_options::overwrite_existing);
  std::ifstream in(src / "problem.toml");
  std::string spec((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // 2^20 x 2^18 f32: 1 TiB per tensor.
  const std::string from = "[[bench.cpu]]\nsymbols = { M = 512, N = 1024 }";
  const auto at = spec.find(from);
  ASSERT_NE(at, std::string::npos);
  spec.replace(at, from.size(), "[[bench.cpu]]\nsymbols = { M = 1048576, N = 262144 }");
  std::ofstream(dir / "problem.toml") << spec;
  const auto c = kjudge({"eval", dir.string(), candidate("ok_honest_softmax.cpp"), "--torch", "none"});
  EXPECT_EQ(c.r.exit_status, 2) << c.r.output;
  EXPECT_NE(c.r.output.find("M=1048576 N=262144"), std::string::npos) << c.r.output;
  EXPECT_NE(c.r.output.find("of host memory"), std::string::npos) << c.r.output;
}

// validate --all --part I/N judges the problems at index I modulo N; parts are complementary.
TEST(Cli, ValidatePartsSplitTheSuite) {
  const auto a = kjudge({"validate", "--all", "--part", "0/3", "--no-timing", "--hidden", "1"});
  const auto b = kjudge({"validate", "--all", "--part", "1/3", "--no-timing", "--hidden", "1"});
  EXPECT_EQ(a.r.exit_status, 0) << a.r.output;
  EXPECT_EQ(b.r.exit_status, 0) << b.r.output;
  EXPECT_NE(a.r.output.find("--part 0/3: 2 of the 6 problems found"), std::string::npos) << a.r.output;
  // Index 0 (the first suite problem by name) is in part 0, not in part 1.
  EXPECT_NE(a.r.output.find("batched_qr "), std::string::npos) << a.r.output;
  EXPECT_EQ(b.r.output.find("batched_qr "), std::string::npos) << b.r.output;
  const auto bad = kjudge({"validate", "--all", "--part", "3/3"});
  EXPECT_EQ(bad.r.exit_status, 2) << bad.r.output;
}

}  // namespace
}  // namespace kjudge::test
