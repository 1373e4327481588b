#include "worker/sandbox.hpp"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef KJUDGE_HAVE_SECCOMP
#include <seccomp.h>
#endif

namespace kjudge {

namespace {

using json = nlohmann::json;

json drop_capabilities() {
  // Bounding set first (needs CAP_SETPCAP, which we still hold), then the effective/permitted/
  // inheritable sets. Without CAP_SYS_PTRACE the worker cannot read a non-dumpable controller's
  // /proc/<pid>/mem or environ even though both run as the same uid.
  int dropped_bounding = 0;
  for (int cap = 0; cap <= 63; ++cap)
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0) ++dropped_bounding;
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  const bool ok = ::syscall(SYS_capset, &hdr, data) == 0;
  return json{{"capabilities_dropped", ok}, {"bounding_dropped", dropped_bounding},
              {"error", ok ? "" : std::strerror(errno)}};
}

json apply_landlock() {
  // ABI v1 rights are enough for a read-only-except-scratch policy.
  const __u64 all_fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                       LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                       LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                       LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
                       LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                       LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                       LANDLOCK_ACCESS_FS_MAKE_SYM;
  const __u64 read_only = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
                          LANDLOCK_ACCESS_FS_READ_DIR;
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) return json{{"enabled", false}, {"reason", std::string("landlock unavailable: ") + std::strerror(errno)}};
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = all_fs;
  const int rs = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (rs < 0) return json{{"enabled", false}, {"reason", std::string("create_ruleset: ") + std::strerror(errno)}};
  // Read-only: system locations a process (and a GPU driver) needs. Not the home directory, the
  // store, the repository or other candidates' build directories.
  std::vector<std::string> ro{"/usr", "/lib", "/lib64", "/lib32", "/etc", "/proc", "/sys", "/opt", "/bin", "/sbin"};
  std::vector<std::string> rw{"/dev"};
  if (const char* lib_dir = std::getenv("KJUDGE_LIBRARY_DIR")) ro.emplace_back(lib_dir);
  if (const char* extra = std::getenv("KJUDGE_SANDBOX_READ")) ro.emplace_back(extra);
  if (const char* scratch = std::getenv("KJUDGE_SCRATCH")) rw.emplace_back(scratch);
  json granted_ro = json::array(), granted_rw = json::array();
  auto add = [&](const std::string& path, __u64 access, json& log) {
    const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return;
    landlock_path_beneath_attr pb{};
    pb.allowed_access = access;
    pb.parent_fd = fd;
    if (::syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) == 0) log.push_back(path);
    ::close(fd);
  };
  for (const auto& p : ro) add(p, read_only, granted_ro);
  for (const auto& p : rw) add(p, all_fs, granted_rw);
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      ::syscall(SYS_landlock_restrict_self, rs, 0) != 0) {
    const std::string err = std::strerror(errno);
    ::close(rs);
    return json{{"enabled", false}, {"reason", "restrict_self: " + err}};
  }
  ::close(rs);
  return json{{"enabled", true}, {"abi", abi}, {"read_only", granted_ro}, {"read_write", granted_rw}};
}

json apply_seccomp(std::string_view backend) {
#ifdef KJUDGE_HAVE_SECCOMP
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) return json{{"enabled", false}, {"reason", "seccomp_init failed"}};
  json denied = json::array();
  auto kill = [&](int nr, const char* name) {
    if (seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, nr, 0) == 0) denied.push_back(name);
  };
  // Network and inter-process access.
  kill(SCMP_SYS(socket), "socket");
  kill(SCMP_SYS(socketpair), "socketpair");
  kill(SCMP_SYS(connect), "connect");
  kill(SCMP_SYS(bind), "bind");
  kill(SCMP_SYS(listen), "listen");
  kill(SCMP_SYS(ptrace), "ptrace");
  kill(SCMP_SYS(process_vm_readv), "process_vm_readv");
  kill(SCMP_SYS(process_vm_writev), "process_vm_writev");
  kill(SCMP_SYS(pidfd_open), "pidfd_open");
  kill(SCMP_SYS(pidfd_getfd), "pidfd_getfd");
  // No new processes or programs; threads (clone with CLONE_THREAD) stay allowed for OpenMP
  // and the GPU driver.
  kill(SCMP_SYS(fork), "fork");
  kill(SCMP_SYS(vfork), "vfork");
  kill(SCMP_SYS(execve), "execve");
  kill(SCMP_SYS(execveat), "execveat");
  if (seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                       SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)) == 0)
    denied.push_back("clone without CLONE_THREAD");
  // clone3 passes its flags through memory that seccomp cannot read: make it unavailable so that
  // libc falls back to clone, which is filtered above.
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) == 0) denied.push_back("clone3 (ENOSYS)");
  // Leaving the process group would escape the watchdog's kill.
  kill(SCMP_SYS(setsid), "setsid");
  kill(SCMP_SYS(setpgid), "setpgid");
  kill(SCMP_SYS(unshare), "unshare");
  kill(SCMP_SYS(setns), "setns");
  // Signals only to itself.
  const pid_t self = ::getpid();
  if (seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(kill), 1,
                       SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(self))) == 0 &&
      seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(tgkill), 1,
                       SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(self))) == 0)
    denied.push_back("kill/tgkill to other processes");
  kill(SCMP_SYS(tkill), "tkill");
  (void)backend;
  const int rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0) return json{{"enabled", false}, {"reason", std::string("seccomp_load: ") + std::strerror(-rc)}};
  return json{{"enabled", true}, {"denied", denied}, {"action", "kill process (SIGSYS)"}};
#else
  (void)backend;
  return json{{"enabled", false}, {"reason", "built without libseccomp"}};
#endif
}

}  // namespace

json apply_sandbox(std::string_view backend) {
  json out;
  out["enabled"] = true;
  out["capabilities"] = drop_capabilities();
  out["landlock"] = apply_landlock();
  out["seccomp"] = apply_seccomp(backend);
  return out;
}

}  // namespace kjudge
