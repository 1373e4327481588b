#include "batch/state.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <random>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/json_file.hpp"
#include "core/utc.hpp"

namespace kjudge::batch {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

json candidate_list(const batch_state& s, const std::vector<candidate_entry>& all) {
  json list = json::array();
  for (const auto& c : all)
    list.push_back({{"key", candidate_key(s, c)}, {"problem", c.problem}, {"candidate", c.rel_path}});
  return list;
}

std::string fresh_batch_id(const fs::path& run_dir) {
  std::random_device rd;
  const std::string seed = fs::absolute(run_dir).string() + utc_now() + std::to_string(::getpid()) +
                           std::to_string(rd()) + std::to_string(rd());
  return "b" + sha256_hex(seed).substr(0, 12);
}

// Writes `doc` as `file` unless `file` exists: link() of a complete temporary file fails with
// EEXIST when another process made it first, so every shard ends up with one batch id.
void create_once(const fs::path& file, const json& doc) {
  const fs::path tmp = file.parent_path() / ("." + file.filename().string() + "." + std::to_string(::getpid()));
  write_json_file(tmp, doc);
  const int rc = ::link(tmp.c_str(), file.c_str());
  const int err = errno;
  std::error_code ec;
  fs::remove(tmp, ec);
  if (rc != 0 && err != EEXIST) throw usage_error(file.string() + ": cannot be created");
}

}  // namespace

batch_state open_state(const fs::path& dir, const fs::path& run_dir, const std::string& layout,
                       const std::vector<candidate_entry>& all, const json& options) {
  std::error_code ec;
  fs::create_directories(dir / "results", ec);
  if (ec) throw usage_error(dir.string() + ": cannot be made (" + ec.message() + ")");
  const fs::path file = dir / "batch.json";
  batch_state s{dir, ""};
  if (!fs::exists(file, ec)) {
    s.batch_id = fresh_batch_id(run_dir);
    create_once(file, {{"schema", "kjudge.batch/1"},
                       {"batch_id", s.batch_id},
                       {"created_at", utc_now()},
                       {"run_dir", fs::absolute(run_dir).string()},
                       {"layout", layout},
                       {"options", options},
                       {"candidates", candidate_list(s, all)}});
  }
  json doc = read_json_file(file);
  if (!doc.contains("batch_id") || !doc["batch_id"].is_string()) throw usage_error(file.string() + ": no batch_id");
  s.batch_id = doc["batch_id"];
  const json list = candidate_list(s, all);
  if (doc.value("candidates", json()) != list || doc.value("options", json()) != options ||
      doc.value("layout", "") != layout) {
    doc["candidates"] = list;
    doc["options"] = options;
    doc["layout"] = layout;
    doc["updated_at"] = utc_now();
    write_json_file(file, doc);
  }
  return s;
}

std::string candidate_key(const batch_state& s, const candidate_entry& c) {
  return s.batch_id + "/" + c.id();
}

fs::path result_path(const batch_state& s, const std::string& key) {
  return s.dir / "results" / (key + ".json");
}

bool has_result(const batch_state& s, const std::string& key) {
  std::error_code ec;
  return fs::is_regular_file(result_path(s, key), ec);
}

std::vector<json> read_results(const batch_state& s) {
  std::vector<std::pair<std::string, json>> found;
  const fs::path root = s.dir / "results" / s.batch_id;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!it->is_regular_file(ec) || name.empty() || name[0] == '.' || it->path().extension() != ".json") continue;
    try {
      json doc = read_json_file(it->path());
      found.emplace_back(doc.contains("batch") ? doc["batch"].value("key", name) : name, std::move(doc));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kjudge batch: skipped %s\n", e.what());
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<json> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

}  // namespace kjudge::batch
