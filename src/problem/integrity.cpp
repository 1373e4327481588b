#include "problem/integrity.hpp"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/hash.hpp"

namespace kjudge {

namespace fs = std::filesystem;

namespace {

constexpr const char* sidecar_file = "kjudge-import.json";

std::map<std::string, std::string> hash_files(const fs::path& dir) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name == problem_manifest_file || !e.is_regular_file(ec)) continue;
    out[name] = sha256_hex(read_file(e.path()));
  }
  return out;
}

void set_writable(const fs::path& p, bool writable) {
  std::error_code ec;
  fs::permissions(p, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                  writable ? fs::perm_options::add : fs::perm_options::remove, ec);
  if (writable) fs::permissions(p, fs::perms::owner_write, fs::perm_options::add, ec);
}

}  // namespace

void seal_problem_dir(const fs::path& dir) {
  nlohmann::json files = nlohmann::json::object();
  for (const auto& [name, sha] : hash_files(dir)) files[name] = sha;
  const fs::path manifest = dir / problem_manifest_file;
  set_writable(manifest, true);
  std::ofstream(manifest) << nlohmann::json{{"sha256", files}}.dump(2) << "\n";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec)) set_writable(e.path(), false);
}

void unseal_problem_dir(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec)) set_writable(e.path(), true);
}

std::optional<std::string> verify_problem_dir(const fs::path& dir) {
  std::error_code ec;
  const fs::path manifest = dir / problem_manifest_file;
  if (!fs::exists(manifest, ec)) {
    if (fs::exists(dir / sidecar_file, ec))
      return "an imported problem without " + std::string(problem_manifest_file) +
             " (imported by an older kjudge, or the manifest was removed): import it again";
    return std::nullopt;
  }
  nlohmann::json recorded;
  try {
    recorded = nlohmann::json::parse(read_file(manifest)).at("sha256");
  } catch (const std::exception& e) {
    return std::string(problem_manifest_file) + " is unreadable (" + e.what() + "): import the problem again";
  }
  const auto actual = hash_files(dir);
  for (const auto& [name, sha] : recorded.items()) {
    const auto it = actual.find(name);
    if (it == actual.end()) return name + " was removed since the problem was imported: import it again";
    if (it->second != sha.get<std::string>())
      return name + " changed since the problem was imported (SHA-256 " + it->second.substr(0, 16) + "..., recorded " +
             sha.get<std::string>().substr(0, 16) + "...): import it again";
  }
  for (const auto& [name, sha] : actual)
    if (!recorded.contains(name)) return name + " was added since the problem was imported: import it again";
  return std::nullopt;
}

std::string problem_content_sha256(const fs::path& dir) {
  std::error_code ec;
  const fs::path manifest = dir / problem_manifest_file;
  return fs::exists(manifest, ec) ? sha256_hex(read_file(manifest)) : std::string();
}

}  // namespace kjudge
