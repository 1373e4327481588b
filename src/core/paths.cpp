#include "core/paths.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "core/error.hpp"

namespace kjudge {

namespace {

std::string non_empty_env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

// A relative directory from the environment is taken from the working directory kjudge was
// started in: workers and Python parties run in their scratch directories and read paths under
// the cache, where a relative path names another place.
std::filesystem::path anchored(const std::string& dir) {
  return std::filesystem::absolute(dir).lexically_normal();
}

}  // namespace

std::filesystem::path default_db_path() {
  namespace fs = std::filesystem;
  if (auto db = non_empty_env("KJUDGE_DB"); !db.empty()) return fs::path(db);
  if (auto xdg = non_empty_env("XDG_DATA_HOME"); !xdg.empty() && fs::path(xdg).is_absolute())
    return fs::path(xdg) / "kjudge" / "kjudge.db";
  std::string home = non_empty_env("HOME");
  if (home.empty()) {
    if (const passwd* pw = getpwuid(getuid()); pw != nullptr && pw->pw_dir != nullptr) home = pw->pw_dir;
  }
  if (home.empty()) throw usage_error("cannot find a place for the result database: set KJUDGE_DB or HOME");
  return fs::path(home) / ".local" / "share" / "kjudge" / "kjudge.db";
}

std::filesystem::path cache_root() {
  if (const char* c = std::getenv("KJUDGE_CACHE"); c && *c) return anchored(c);
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::filesystem::path(x) / "kjudge";
  if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".cache" / "kjudge";
  return std::filesystem::temp_directory_path() / "kjudge-cache";
}

std::filesystem::path imported_problems_root() {
  if (auto r = non_empty_env("KJUDGE_IMPORTED"); !r.empty()) return anchored(r);
  return default_db_path().parent_path() / "problems";
}

}  // namespace kjudge
