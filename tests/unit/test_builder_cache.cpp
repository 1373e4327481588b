// The builder's cache key covers the files a source includes with #include "...": editing a
// header next to the source (or one it includes in turn) rebuilds, an unchanged one does not.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "builder/builder.hpp"

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

}  // namespace
