#include "worker/detail/seal.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "worker/detail/fault_report.hpp"

namespace kjudge {

namespace {

#ifndef SYS_mseal
constexpr long sys_mseal = 462;  // the same number on every architecture that has it
#else
constexpr long sys_mseal = SYS_mseal;
#endif

struct mapping {
  std::uintptr_t lo = 0, hi = 0;
  std::string perms, path;
};

bool parse_line(const std::string& line, mapping& m) {
  std::istringstream in(line);
  std::string range, offset, dev, inode;
  if (!(in >> range >> m.perms >> offset >> dev >> inode)) return false;
  std::getline(in, m.path);
  const auto first = m.path.find_first_not_of(' ');
  m.path = first == std::string::npos ? "" : m.path.substr(first);
  const auto dash = range.find('-');
  if (dash == std::string::npos) return false;
  m.lo = std::stoull(range.substr(0, dash), nullptr, 16);
  m.hi = std::stoull(range.substr(dash + 1), nullptr, 16);
  return true;
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// Whether a mapping is part of the timed path the worker must keep: the executable itself (the
// timer, the session and, with full RELRO, its import table), the runtime libraries, the loader's
// code (not its RELRO: glibc makes that writable for a moment to dlopen a library that needs an
// executable stack) and the vDSO.
bool on_timed_path(const mapping& m, const std::string& exe) {
  if (m.perms.size() < 4 || m.perms[1] == 'w') return false;
  if (m.path == "[vdso]" || m.path == "[vvar]" || m.path == "[vvar_vclock]") return true;
  if (m.path.empty() || m.path[0] != '/') return false;
  if (m.path == exe) return true;
  const std::string base = std::filesystem::path(m.path).filename().string();
  if (starts_with(base, "ld-linux")) return m.perms[2] == 'x';
  return starts_with(base, "libc.so") || starts_with(base, "libstdc++.so") || starts_with(base, "libm.so") ||
         starts_with(base, "libgcc_s.so");
}

}  // namespace

nlohmann::json seal_worker_code() {
  std::error_code ec;
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  std::ifstream maps("/proc/self/maps");
  if (!maps) return {{"enabled", false}, {"reason", "cannot read /proc/self/maps"}};
  nlohmann::json sealed = nlohmann::json::array(), failed = nlohmann::json::array();
  std::string line;
  std::size_t bytes = 0;
  while (std::getline(maps, line)) {
    mapping m;
    if (!parse_line(line, m) || !on_timed_path(m, exe)) continue;
    const std::string name = std::filesystem::path(m.path).filename().string() + " " + m.perms;
    if (::syscall(sys_mseal, m.lo, m.hi - m.lo, 0) != 0) {
      if (errno == ENOSYS) return {{"enabled", false}, {"reason", "the kernel has no mseal (Linux 6.10+)"}};
      failed.push_back(name + ": " + std::strerror(errno));
      continue;
    }
    fault_report::add_sealed(m.lo, m.hi, name.c_str());
    sealed.push_back(name);
    bytes += m.hi - m.lo;
  }
  nlohmann::json out{{"enabled", !sealed.empty()}, {"mappings", sealed}, {"bytes", bytes}};
  if (!failed.empty()) out["failed"] = failed;
  return out;
}

}  // namespace kjudge
