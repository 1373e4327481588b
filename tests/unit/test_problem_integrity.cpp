// Imported problems are verified against the manifest their import wrote (problem/integrity.hpp):
// a changed, removed or added file, or an import's sidecar without a manifest, is refused with
// the file named.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "problem/integrity.hpp"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

class ImportedProblem : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("kjudge-integrity-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(m_dir);
    std::ofstream(m_dir / "model.py") << "def forward(x):\n    return x * 2\n";
    std::ofstream(m_dir / "problem.toml") << "name = \"p\"\n";
    std::ofstream(m_dir / "kjudge-import.json") << "{}\n";
  }
  void TearDown() override {
    unseal_problem_dir(m_dir);
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }
  fs::path m_dir;
};

TEST_F(ImportedProblem, PassesAsImportedAndIsReadOnly) {
  seal_problem_dir(m_dir);
  EXPECT_FALSE(verify_problem_dir(m_dir).has_value());
  EXPECT_EQ(fs::status(m_dir / "model.py").permissions() & fs::perms::owner_write, fs::perms::none);
  EXPECT_EQ(problem_content_sha256(m_dir).size(), 64u);
}

TEST_F(ImportedProblem, AChangedFileIsNamed) {
  seal_problem_dir(m_dir);
  fs::permissions(m_dir / "model.py", fs::perms::owner_write, fs::perm_options::add);
  std::ofstream(m_dir / "model.py", std::ios::app) << "forward = lambda x: x * 0\n";
  const auto why = verify_problem_dir(m_dir);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("model.py changed since the problem was imported"), std::string::npos) << *why;
}

TEST_F(ImportedProblem, ARemovedOrAddedFileIsNamed) {
  seal_problem_dir(m_dir);
  std::ofstream(m_dir / "task.py") << "x = 1\n";
  ASSERT_TRUE(verify_problem_dir(m_dir).has_value());
  EXPECT_NE(verify_problem_dir(m_dir)->find("task.py was added"), std::string::npos);
  fs::remove(m_dir / "task.py");
  fs::remove(m_dir / "problem.toml");
  ASSERT_TRUE(verify_problem_dir(m_dir).has_value());
  EXPECT_NE(verify_problem_dir(m_dir)->find("problem.toml was removed"), std::string::npos);
}

TEST_F(ImportedProblem, AnImportWithoutAManifestIsRefusedAndAHandWrittenProblemIsNot) {
  EXPECT_NE(verify_problem_dir(m_dir).value_or("").find("without kjudge-manifest.json"), std::string::npos);
  fs::remove(m_dir / "kjudge-import.json");
  EXPECT_FALSE(verify_problem_dir(m_dir).has_value());
}

}  // namespace
}  // namespace kjudge
