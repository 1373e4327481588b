#include "judge/torch_compile_cache.hpp"

#include <unistd.h>

#include <chrono>
#include <system_error>

#include "core/hash.hpp"
#include "core/paths.hpp"

namespace kjudge {

namespace fs = std::filesystem;

namespace {

// Regular files under `dir` and their bytes.
std::pair<std::size_t, std::uintmax_t> census(const fs::path& dir) {
  std::size_t files = 0;
  std::uintmax_t bytes = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    ++files;
    bytes += it->file_size(ec);
  }
  return {files, bytes};
}

// Removes `<key>.tmp-*` copies untouched for an hour: what a kjudge killed mid-copy left (a copy
// takes seconds). Not by whether their pid is alive: KJUDGE_CACHE may be shared by other hosts
// and containers, whose pids mean nothing here, and whose copy in progress must stay.
void remove_orphaned_copies(const fs::path& root, const std::string& key) {
  std::error_code ec;
  const std::string prefix = key + ".tmp-";
  const auto cutoff = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind(prefix, 0) != 0) continue;
    std::error_code ignored;
    const auto written = fs::last_write_time(it->path(), ignored);
    if (!ignored && written < cutoff) fs::remove_all(it->path(), ignored);
  }
}

}  // namespace

torch_compile_cache::torch_compile_cache(const nlohmann::json& party, const std::string& file_sha256)
    : m_key(sha256_hex(party.dump() + "\n" + file_sha256).substr(0, 32)) {}

fs::path torch_compile_cache::entry() const {
  return cache_root() / "torch-compile" / m_key;
}

std::size_t torch_compile_cache::seed(const fs::path& scratch) const {
  std::error_code ec;
  const fs::path from = entry();
  if (!fs::is_directory(from, ec)) return 0;
  const fs::path to = scratch / k_scratch_subdir;
  fs::create_directories(to, ec);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
  if (ec) return 0;
  // The copy keeps the entry's modes; a file stored read-only would refuse the worker's rewrite,
  // which runs without CAP_DAC_OVERRIDE even as root.
  for (auto it = fs::recursive_directory_iterator(to, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::error_code ignored;
    const auto add = it->is_directory(ignored) ? fs::perms::owner_all : fs::perms::owner_read | fs::perms::owner_write;
    fs::permissions(it->path(), add, fs::perm_options::add | fs::perm_options::nofollow, ignored);
  }
  return census(to).first;
}

void torch_compile_cache::discard(const fs::path& scratch) const {
  std::error_code ignored;
  fs::remove_all(scratch / k_scratch_subdir, ignored);
  // Renamed away first, so that no reader copies a half-removed entry.
  const fs::path gone = entry().parent_path() / (m_key + ".tmp-discarded-" + std::to_string(::getpid()));
  fs::rename(entry(), gone, ignored);
  fs::remove_all(gone, ignored);
}

std::string torch_compile_cache::publish(const fs::path& scratch) const {
  std::error_code ec;
  const fs::path from = scratch / k_scratch_subdir;
  const fs::path to = entry();
  if (fs::is_directory(to, ec)) return "kept";
  const auto [files, bytes] = census(from);
  if (files == 0) return "empty";
  if (bytes > k_max_entry_bytes) return "too large";
  // Copied beside the entry, then renamed onto it: a rename onto an existing entry fails, so a
  // concurrent evaluation's entry (complete, since it was renamed too) stays as it is.
  fs::create_directories(to.parent_path(), ec);
  remove_orphaned_copies(to.parent_path(), m_key);
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  const fs::path tmp = to.parent_path() / (m_key + ".tmp-" + host + "-" + std::to_string(::getpid()));
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  if (!ec) fs::copy(from, tmp, fs::copy_options::recursive, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    return "failed: " + ec.message();
  }
  fs::rename(tmp, to, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    return fs::is_directory(to, ignored) ? "kept" : "failed: " + ec.message();
  }
  return "published";
}

}  // namespace kjudge
