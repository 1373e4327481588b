#include "problem/registry.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "problem/integrity.hpp"

namespace kjudge {
namespace detail {
namespace {

namespace fs = std::filesystem;

constexpr const char* k_spec_file = "problem.toml";

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos || s == "." || s == ".." ||
         (s.size() >= 5 && s.compare(s.size() - 5, 5, ".toml") == 0);
}

// An imported problem's files must be those its import wrote (problem/integrity.hpp).
void verify_files(const fs::path& dir) {
  if (const auto why = verify_problem_dir(dir)) throw usage_error(located(dir.string(), 0, *why));
}

problem_spec load_path(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const fs::path file = path / k_spec_file;
    if (!fs::is_regular_file(file, ec)) {
      throw usage_error(located(path.string(), 0, "expected a problem directory holding problem.toml, found none"));
    }
    verify_files(path);
    return parse_problem_file(file);
  }
  if (!fs::exists(path, ec)) {
    throw usage_error(
        located(path.string(), 0, "expected a problem directory or problem.toml, found nothing at this path"));
  }
  verify_files(fs::absolute(path).parent_path());
  return parse_problem_file(path);
}

// The suite's name checks: the directory name is what users type, so it must match.
problem_spec load_suite_entry(const fs::path& dir) {
  problem_spec p = parse_problem_file(dir / k_spec_file);
  const std::string dir_name = dir.filename().string();
  if (p.name != dir_name) {
    throw usage_error(
        located(p.file.string(), 0,
                "expected name = \"" + dir_name + "\" (the problem's directory name), found \"" + p.name + "\""));
  }
  return p;
}

}  // namespace
}  // namespace detail

std::filesystem::path problems_root() {
  if (const char* env = std::getenv("KJUDGE_PROBLEMS"); env != nullptr && *env != '\0') {
    return std::filesystem::path(env);
  }
  return std::filesystem::path(KJUDGE_SOURCE_DIR) / "problems";
}

std::vector<std::string> problem_names() {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  std::error_code ec;
  const fs::path root = problems_root();
  if (!fs::is_directory(root, ec)) return names;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    std::error_code ec2;
    if (e.is_directory(ec2) && fs::is_regular_file(e.path() / detail::k_spec_file, ec2)) {
      names.push_back(e.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

problem_spec load_problem(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  if (name_or_path.empty()) throw usage_error("expected a problem name or path, found an empty string");
  if (detail::looks_like_path(name_or_path)) {
    // An imported problem's name ("kb/level1/19_ReLU", kjudge import) when no such path exists.
    std::error_code ec;
    const fs::path imported = imported_problems_root() / name_or_path;
    if (!fs::exists(name_or_path, ec) && fs::is_regular_file(imported / detail::k_spec_file, ec))
      return detail::load_path(imported);
    return detail::load_path(name_or_path);
  }
  const auto names = problem_names();
  if (std::find(names.begin(), names.end(), name_or_path) != names.end()) {
    return detail::load_suite_entry(problems_root() / name_or_path);
  }
  std::error_code ec;
  if (fs::is_regular_file(fs::path(name_or_path) / detail::k_spec_file, ec)) {
    return detail::load_path(name_or_path);  // a problem directory in the working directory
  }
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  throw usage_error("unknown problem '" + name_or_path + "': expected a suite name (" +
                    (known.empty() ? "none found under " + problems_root().string() : known) +
                    ") or a path to a problem directory");
}

std::vector<problem_spec> load_all_problems() {
  std::vector<problem_spec> out;
  for (const auto& n : problem_names()) out.push_back(detail::load_suite_entry(problems_root() / n));
  std::sort(out.begin(), out.end(), [](const problem_spec& a, const problem_spec& b) { return a.name < b.name; });
  return out;
}

}  // namespace kjudge
