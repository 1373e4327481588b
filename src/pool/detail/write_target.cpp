#include "pool/detail/write_target.hpp"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

namespace kjudge::detail {

std::string joined_path(const std::string& base, const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p = path.starts_with('/') ? fs::path(path) : fs::path(base) / path;
  std::string normal = p.lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

bool names_other_process(const std::string& path, pid_t tgid, const std::function<bool(pid_t)>& is_own_thread) {
  constexpr std::string_view proc = "/proc/";
  if (!path.starts_with(proc)) return false;
  const auto rest = std::string_view(path).substr(proc.size());
  const auto component = rest.substr(0, rest.find('/'));
  pid_t n = 0;
  const auto [end, ec] = std::from_chars(component.data(), component.data() + component.size(), n);
  if (ec != std::errc{} || end != component.data() + component.size()) return false;  // self, sys, ...
  return n != tgid && !is_own_thread(n);
}

std::optional<pid_t> thread_group_of(pid_t tid) {
  std::ifstream status("/proc/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.starts_with("Tgid:")) {
      const auto digits = line.find_first_of("0123456789");
      if (digits == std::string::npos) return std::nullopt;
      return static_cast<pid_t>(std::stol(line.substr(digits)));
    }
  return std::nullopt;
}

std::optional<std::string> read_remote_string(pid_t pid, std::uint64_t address, std::size_t max) {
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  std::string out;
  while (out.size() < max) {
    const std::uint64_t to_page_end = page - (address % page);
    std::string chunk(std::min<std::uint64_t>(to_page_end, max - out.size()), '\0');
    iovec local{chunk.data(), chunk.size()};
    iovec remote{reinterpret_cast<void*>(address), chunk.size()};  // NOLINT: an address in `pid`
    const ssize_t n = ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n <= 0) return std::nullopt;
    chunk.resize(static_cast<std::size_t>(n));
    if (const auto nul = chunk.find('\0'); nul != std::string::npos) return out + chunk.substr(0, nul);
    out += chunk;
    address += static_cast<std::uint64_t>(n);
  }
  return std::nullopt;  // longer than any path
}

std::optional<std::string> base_directory(pid_t tid, int dirfd) {
  const std::string link =
      "/proc/" + std::to_string(tid) + (dirfd == AT_FDCWD ? "/cwd" : "/fd/" + std::to_string(dirfd));
  std::error_code ec;
  const auto target = std::filesystem::read_symlink(link, ec);
  if (ec) return std::nullopt;
  return target.string();
}

}  // namespace kjudge::detail
