// The builder's cache key covers the files a source includes with #include "...": editing a
// header next to the source (or one it includes in turn) rebuilds, an unchanged one does not. A
// cached library is verified against the SHA-256 recorded when it was built, and the compiler runs
// in the build's sandbox (kjudge-confine): it cannot read what the build was not given.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "builder/builder.hpp"
#include "core/hash.hpp"
#include "core/subprocess.hpp"

namespace {

namespace fs = std::filesystem;

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

TEST(BuilderCache, AnIncludedHeaderIsPartOfTheKey) {
  const fs::path dir = fs::temp_directory_path() / ("kjudge-builder-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ::setenv("KJUDGE_CACHE", (dir / "cache").c_str(), 1);
  write(dir / "inner.h", "inline int inner_value() { return 1; }\n");
  write(dir / "outer.h", "#include \"inner.h\"\n");
  write(dir / "cand.cpp",
        "#include \"kjudge/candidate.h\"\n#include \"outer.h\"\n"
        "KJ_EXPORT int kj_run(const kj_args* a) { (void)a; return inner_value() - 1; }\n");
  const kjudge::build_request req{dir / "cand.cpp", "cpu"};
  const auto first = kjudge::build_candidate(req);
  ASSERT_TRUE(first.ok) << first.diagnostics;
  EXPECT_FALSE(first.cached);
  const auto again = kjudge::build_candidate(req);
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.library, first.library);
  // Two levels down: outer.h includes inner.h.
  write(dir / "inner.h", "inline int inner_value() { return 2; }\n");
  const auto edited = kjudge::build_candidate(req);
  ASSERT_TRUE(edited.ok) << edited.diagnostics;
  EXPECT_FALSE(edited.cached);
  EXPECT_NE(edited.library, first.library);
  ::unsetenv("KJUDGE_CACHE");
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// A fresh cache under a temporary directory, removed with the fixture.
class BuildDir : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("kjudge-builder-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(m_dir);
    ::setenv("KJUDGE_CACHE", (m_dir / "cache").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("KJUDGE_CACHE");
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(m_dir, ec))
      fs::permissions(e.path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(m_dir, ec);
  }
  fs::path m_dir;
};

TEST_F(BuildDir, ATamperedCachedLibraryIsRebuiltAndSaysSo) {
  write(m_dir / "cand.cpp", "#include \"kjudge/candidate.h\"\nKJ_EXPORT int kj_run(const kj_args* a) { (void)a; return 0; }\n");
  const kjudge::build_request req{m_dir / "cand.cpp", "cpu"};
  const auto first = kjudge::build_candidate(req);
  ASSERT_TRUE(first.ok) << first.diagnostics;
  // Read-only once built: a worker (which runs without capabilities) cannot write it.
  EXPECT_EQ(fs::status(first.library).permissions() & fs::perms::owner_write, fs::perms::none);
  const std::string original = kjudge::read_file(first.library);
  // Someone replaces the library (another build's, say) behind the cache's back.
  fs::permissions(first.library, fs::perms::owner_write, fs::perm_options::add);
  write(first.library, "not the library that was built");
  const auto again = kjudge::build_candidate(req);
  ASSERT_TRUE(again.ok) << again.diagnostics;
  EXPECT_FALSE(again.cached);
  EXPECT_NE(again.cache_note.find("differs from"), std::string::npos) << again.cache_note;
  EXPECT_EQ(kjudge::read_file(again.library).size(), original.size());
  // The rebuilt entry verifies: the next build uses it.
  const auto third = kjudge::build_candidate(req);
  EXPECT_TRUE(third.cached);
  EXPECT_TRUE(third.cache_note.empty());
}

TEST_F(BuildDir, TheCompilerCannotEmbedAFileTheBuildWasNotGiven) {
  // A file beside the cache (as the store is): readable by this process, not by the compiler.
  write(m_dir / "secret.txt", "kjudge-builder-test-secret\n");
  write(m_dir / "cand.cpp",
        "#include \"kjudge/candidate.h\"\n"
        "asm(\".section .rodata\\n.incbin \\\"" + (m_dir / "secret.txt").string() + "\\\"\\n.previous\");\n"
        "KJ_EXPORT int kj_run(const kj_args* a) { (void)a; return 0; }\n");
  const auto r = kjudge::build_candidate(kjudge::build_request{m_dir / "cand.cpp", "cpu"});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.diagnostics.find("secret.txt"), std::string::npos) << r.diagnostics;
}

// The compiler's environment is exactly what the builder gives it (run_command's clean_env):
// nothing of the controller's, such as KJUDGE_DB, reaches it or a file it could embed.
TEST(Subprocess, ACleanEnvironmentHoldsOnlyWhatIsGiven) {
  ::setenv("KJUDGE_BUILDER_TEST_MARK", "visible", 1);
  kjudge::command_options o;
  o.clean_env = true;
  o.extra_env = {{"PATH", "/usr/bin:/bin"}, {"ONLY", "this"}};
  const auto r = kjudge::run_command({"env"}, o);
  ::unsetenv("KJUDGE_BUILDER_TEST_MARK");
  EXPECT_EQ(r.exit_status, 0);
  EXPECT_EQ(r.output, "ONLY=this\nPATH=/usr/bin:/bin\n");
}

}  // namespace
