// Where kjudge keeps things (core/paths.hpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "core/paths.hpp"

namespace fs = std::filesystem;

namespace {

// Sets an environment variable for one test and restores it after.
class scoped_env {
 public:
  scoped_env(const char* name, const std::string& value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~scoped_env() {
    if (m_old) {
      ::setenv(m_name, m_old->c_str(), 1);
    } else {
      ::unsetenv(m_name);
    }
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  const char* m_name;
  std::optional<std::string> m_old;
};

}  // namespace

// A relative KJUDGE_CACHE named another place inside a worker's scratch directory: on 2026-12-07
// (H100) two KernelBench references failed to start ("cannot read
// build-gpu/kjudge-cache/scratch/.../party.json"). It is anchored at the working directory.
TEST(Paths, RelativeCacheAndImportedRootsAreMadeAbsolute) {
  const scoped_env cache("KJUDGE_CACHE", "some/../rel-cache");
  const scoped_env imported("KJUDGE_IMPORTED", "rel-problems");
  EXPECT_EQ(kjudge::cache_root(), fs::current_path() / "rel-cache");
  EXPECT_EQ(kjudge::imported_problems_root(), fs::current_path() / "rel-problems");
}

TEST(Paths, AbsoluteRootsAreKept) {
  const scoped_env cache("KJUDGE_CACHE", "/var/tmp/kj-cache");
  const scoped_env imported("KJUDGE_IMPORTED", "/var/tmp/kj-problems");
  EXPECT_EQ(kjudge::cache_root(), fs::path("/var/tmp/kj-cache"));
  EXPECT_EQ(kjudge::imported_problems_root(), fs::path("/var/tmp/kj-problems"));
}
