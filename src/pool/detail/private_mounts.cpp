#include "pool/detail/private_mounts.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

namespace kjudge::detail {

namespace {

// Mount points in /proc/self/mountinfo escape space, tab, newline and backslash as \ooo.
std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const std::string oct = s.substr(i + 1, 3);
      if (oct.size() == 3 && oct.find_first_not_of("01234567") == std::string::npos) {
        out.push_back(static_cast<char>(std::stoi(oct, nullptr, 8)));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

bool under(const std::string& path, const std::string& dir) {
  if (dir.empty()) return false;
  if (path == dir) return true;
  const std::string d = dir.back() == '/' ? dir : dir + "/";
  return path.rfind(d, 0) == 0;
}

// The per-mount flags a bind remount must repeat (MS_REMOUNT|MS_BIND replaces them all).
unsigned long mount_flags(const std::string& options) {
  unsigned long f = 0;
  std::istringstream in(options);
  std::string o;
  while (std::getline(in, o, ',')) {
    if (o == "nosuid")
      f |= MS_NOSUID;
    else if (o == "nodev")
      f |= MS_NODEV;
    else if (o == "noexec")
      f |= MS_NOEXEC;
    else if (o == "noatime")
      f |= MS_NOATIME;
    else if (o == "nodiratime")
      f |= MS_NODIRATIME;
    else if (o == "relatime")
      f |= MS_RELATIME;
    else if (o == "strictatime")
      f |= MS_STRICTATIME;
  }
  return f;
}

// Async-signal-safe text helpers for the report.
void put(char*& p, const char* end, const char* s) {
  while (*s != 0 && p + 1 < end) *p++ = *s++;
  *p = 0;
}

void put_number(char*& p, const char* end, unsigned long v) {
  char d[24];
  int n = 0;
  do {
    d[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0 && n < 24);
  while (n > 0 && p + 1 < end) *p++ = d[--n];
  *p = 0;
}

bool write_file(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

}  // namespace

private_mounts::private_mounts(const std::string& scratch, std::size_t quota_bytes)
    : m_scratch(scratch), m_quota_bytes(quota_bytes) {
  if (m_quota_bytes > 0) m_tmpfs_options = "size=" + std::to_string(m_quota_bytes) + ",mode=0700";
  m_user_ns = ::geteuid() != 0;
  m_uid_map = std::to_string(::geteuid()) + " " + std::to_string(::geteuid()) + " 1\n";
  m_gid_map = std::to_string(::getegid()) + " " + std::to_string(::getegid()) + " 1\n";
  struct stat st {};
  m_has_shm = ::stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode);
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string id, parent, devno, root, point, options;
    if (!(f >> id >> parent >> devno >> root >> point >> options)) continue;
    point = unescape(point);
    if (under(point, "/proc") || under(point, "/sys") || under(point, "/dev") || under(point, m_scratch)) continue;
    m_read_only.push_back(entry{point, mount_flags(options)});
  }
}

void private_mounts::apply(char* report, std::size_t capacity) const {
  char* p = report;
  const char* end = report + capacity;
  *p = 0;
  if (m_user_ns) {
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
      put(p, end, "none: unshare(CLONE_NEWUSER|CLONE_NEWNS) refused");
      return;
    }
    // An unprivileged user namespace maps only the user itself; setgroups must be denied first.
    write_file("/proc/self/setgroups", "deny");
    if (!write_file("/proc/self/uid_map", m_uid_map) || !write_file("/proc/self/gid_map", m_gid_map)) {
      put(p, end, "none: the user namespace's id maps could not be written");
      return;
    }
    put(p, end, "user_ns,");
  } else if (::unshare(CLONE_NEWNS) != 0) {
    put(p, end, "none: unshare(CLONE_NEWNS) refused");
    return;
  }
  put(p, end, "mount_ns");
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    put(p, end, ",private_propagation_refused");
    return;  // without a private tree, later mounts would reach the host
  }
  if (m_has_shm && ::mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=64m") == 0)
    put(p, end, ",shm");
  bool scratch_bound = false;
  if (!m_scratch.empty() && m_quota_bytes > 0) {
    scratch_bound = ::mount("tmpfs", m_scratch.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, m_tmpfs_options.c_str()) == 0;
    if (scratch_bound) {
      put(p, end, ",scratch_quota=");
      put_number(p, end, m_quota_bytes);
    } else {
      put(p, end, ",scratch_quota_refused");
    }
  }
  if (!scratch_bound && !m_scratch.empty())
    scratch_bound = ::mount(m_scratch.c_str(), m_scratch.c_str(), nullptr, MS_BIND | MS_REC, nullptr) == 0;
  if (!scratch_bound) {
    put(p, end, ",scratch_bind_refused");
    return;  // remounting the scratch's file system read-only would leave the worker no room
  }
  unsigned long read_only = 0;
  for (const auto& e : m_read_only)
    if (::mount(nullptr, e.path.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | e.flags, nullptr) == 0)
      ++read_only;
  put(p, end, ",readonly=");
  put_number(p, end, read_only);
  put(p, end, "/");
  put_number(p, end, m_read_only.size());
}

}  // namespace kjudge::detail
