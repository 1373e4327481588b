#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "judge/torch_compile_cache.hpp"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

// KJUDGE_CACHE pointed at a fresh directory for one test, restored after.
class CacheRoot {
 public:
  CacheRoot() {
    std::string tmpl = (fs::temp_directory_path() / "kjudge_tcc_XXXXXX").string();
    m_dir = mkdtemp(tmpl.data());
    if (const char* old = std::getenv("KJUDGE_CACHE")) m_old = old;
    ::setenv("KJUDGE_CACHE", m_dir.c_str(), 1);
  }
  ~CacheRoot() {
    if (m_old)
      ::setenv("KJUDGE_CACHE", m_old->c_str(), 1);
    else
      ::unsetenv("KJUDGE_CACHE");
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }
  [[nodiscard]] const fs::path& dir() const { return m_dir; }

 private:
  fs::path m_dir;
  std::optional<std::string> m_old;
};

// A scratch directory holding one cache file, as a baseline's worker leaves it.
fs::path scratch_with_a_cache_file(const fs::path& root, const std::string& name) {
  const fs::path s = root / name;
  fs::create_directories(s / torch_compile_cache::k_scratch_subdir / "inductor");
  std::ofstream(s / torch_compile_cache::k_scratch_subdir / "inductor" / "graph") << "compiled";
  return s;
}

// The store is shared by every kjudge that has the same KJUDGE_CACHE: Slurm array tasks on other
// nodes with a shared home (tests/slurm), containers with their own pid namespaces. Their
// in-progress copies are `<key>.tmp-<pid>` in their own pid space: a pid that does not exist here
// says nothing about them. Reaping such a copy while its owner fills it makes the owner's publish
// fail or, between its copy and its rename, rename a tree half deleted, which is then kept (an
// entry is never replaced).
TEST(TorchCompileCache, PublishLeavesACopyInProgressOfAnotherPidSpace) {
  const CacheRoot root;
  const torch_compile_cache c(nlohmann::json{{"file", "reference.py"}, {"compile", "default"}}, "ab12");
  const fs::path store = root.dir() / "torch-compile";
  // Another node's copy in progress: its pid (2^22 - 3, above the default pid_max and, in most
  // configurations, every pid here) is alive there, not here.
  const fs::path foreign = store / (c.key() + ".tmp-4194301");
  fs::create_directories(foreign / "inductor");
  std::ofstream(foreign / "inductor" / "graph") << "half copied";
  ASSERT_NE(::getpid(), 4194301);
  EXPECT_EQ(c.publish(scratch_with_a_cache_file(root.dir(), "baseline")), "published");
  EXPECT_TRUE(fs::exists(foreign / "inductor" / "graph")) << "another pid space's copy was removed mid-flight";
}

// The contract the reaping must keep: two publishes of one key leave one complete entry.
TEST(TorchCompileCache, SecondPublishKeepsTheFirstEntry) {
  const CacheRoot root;
  const torch_compile_cache c(nlohmann::json{{"file", "reference.py"}, {"compile", "default"}}, "ab12");
  EXPECT_EQ(c.publish(scratch_with_a_cache_file(root.dir(), "a")), "published");
  EXPECT_EQ(c.publish(scratch_with_a_cache_file(root.dir(), "b")), "kept");
  EXPECT_TRUE(fs::exists(c.entry() / "inductor" / "graph"));
}

}  // namespace
}  // namespace kjudge
