#include "sandbox/confine.hpp"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/descriptor_passing.hpp"

#ifdef KJUDGE_HAVE_SECCOMP
#include <seccomp.h>
#endif

namespace kjudge::sandbox {

namespace {

using json = nlohmann::json;

constexpr int sys_mseal = 462;  // the same number on every architecture that has it

}  // namespace

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
  return json{{"enabled", ok},
              {"capabilities_dropped", ok},
              {"bounding_dropped", dropped_bounding},
              {"error", ok ? "" : std::strerror(errno)}};
}

namespace {

// landlock_ruleset_attr as of landlock ABI 6 (Linux 6.12): `scoped` restricts signals and
// abstract unix sockets to the sandbox's own domain. Declared here because the system header may
// predate it; the kernel takes the struct size and ignores nothing it does not know.
struct ruleset_attr_v6 {
  __u64 handled_access_fs;
  __u64 handled_access_net;
  __u64 scoped;
};
constexpr __u64 scope_abstract_unix_socket = 1ull << 0;
constexpr __u64 scope_signal = 1ull << 1;

}  // namespace

json restrict_filesystem(const fs_rules& rules) {
  // ABI v1 rights are enough for a read-only-except-scratch policy.
  const __u64 all_fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
                       LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                       LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                       LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                       LANDLOCK_ACCESS_FS_MAKE_SYM;
  const __u64 read_only = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1)
    return json{{"enabled", false}, {"reason", std::string("landlock unavailable: ") + std::strerror(errno)}};
  // From ABI 6 the domain also scopes signals (no signal to a process outside the sandbox: the
  // controller, the reference or baseline workers) and abstract unix sockets; a second layer
  // under seccomp's filters on kill/tgkill/pidfd_send_signal/rt_sigqueueinfo.
  // From ABI 2, moving or linking a file into another directory needs the REFER right (ABI 1
  // refuses every such move with EXDEV, which broke Triton's cache: it writes a file in a
  // temporary directory and renames it into place); from ABI 3, truncation has its own right.
  // Both are handled (denied outside) and granted where everything is granted.
  constexpr __u64 fs_refer = 1ULL << 13, fs_truncate = 1ULL << 14;
  const __u64 handled = all_fs | (abi >= 2 ? fs_refer : 0) | (abi >= 3 ? fs_truncate : 0);
  ruleset_attr_v6 attr{};
  attr.handled_access_fs = handled;
  const bool scoped = abi >= 6 && rules.scope_signals_and_sockets;
  if (scoped) attr.scoped = scope_signal | scope_abstract_unix_socket;
  const std::size_t attr_size = scoped ? sizeof(ruleset_attr_v6) : sizeof(landlock_ruleset_attr);
  const int rs = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0));
  if (rs < 0) return json{{"enabled", false}, {"reason", std::string("create_ruleset: ") + std::strerror(errno)}};
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
  for (const auto& p : rules.read_dirs) add(p, read_only, granted_ro);
  // A rule on a file (not a directory) may grant only file rights.
  for (const auto& p : rules.read_files) add(p, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE, granted_ro);
  for (const auto& p : rules.write_dirs) add(p, handled, granted_rw);
  for (const auto& p : rules.write_files)
    add(p, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 3 ? fs_truncate : 0), granted_rw);
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || ::syscall(SYS_landlock_restrict_self, rs, 0) != 0) {
    const std::string err = std::strerror(errno);
    ::close(rs);
    return json{{"enabled", false}, {"reason", "restrict_self: " + err}};
  }
  ::close(rs);
  json scopes = json::array();
  if (scoped) scopes = json::array({"signal", "abstract_unix_socket"});
  return json{
      {"enabled", true}, {"abi", abi}, {"read_only", granted_ro}, {"read_write", granted_rw}, {"scoped", scopes}};
}

json restrict_syscalls(const syscall_rules& rules) {
#ifdef KJUDGE_HAVE_SECCOMP
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) return json{{"enabled", false}, {"reason", "seccomp_init failed"}};
  // With a listener (API level 6: notifications together with TSYNC), the controller sees what
  // is notified: the writes below always, and with fatal_denials false every denied call, which
  // it refuses (EPERM) and records as evidence instead of the process being killed.
  const bool notify = rules.listener != nullptr && seccomp_api_get() >= 6;
  const std::uint32_t deny = notify && !rules.fatal_denials ? SCMP_ACT_NOTIFY : SCMP_ACT_KILL_PROCESS;
  json denied = json::array();
  auto kill = [&](int nr, const char* name) {
    if (seccomp_rule_add(ctx, deny, nr, 0) == 0) denied.push_back(name);
  };
  const pid_t self = rules.self != 0 ? rules.self : ::getpid();
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
  if (!rules.allow_subprocesses) {
    kill(SCMP_SYS(fork), "fork");
    kill(SCMP_SYS(vfork), "vfork");
    kill(SCMP_SYS(execve), "execve");
    kill(SCMP_SYS(execveat), "execveat");
    if (seccomp_rule_add(ctx, deny, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)) == 0)
      denied.push_back("clone without CLONE_THREAD");
  }
  // clone3 passes its flags through memory that seccomp cannot read: make it unavailable so that
  // libc falls back to clone, which is filtered above.
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) == 0) denied.push_back("clone3 (ENOSYS)");
  // Leaving the process group would escape the watchdog's kill.
  kill(SCMP_SYS(setsid), "setsid");
  kill(SCMP_SYS(setpgid), "setpgid");
  kill(SCMP_SYS(unshare), "unshare");
  kill(SCMP_SYS(setns), "setns");
  // Signals only to itself.
  if (seccomp_rule_add(ctx, deny, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(self))) == 0 &&
      seccomp_rule_add(ctx, deny, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(self))) == 0)
    denied.push_back("kill/tgkill to other processes");
  kill(SCMP_SYS(tkill), "tkill");
  // Signals by other routes: a pidfd (open("/proc/<pid>") is one, and pidfd_open is not needed
  // for it) and queued signals.
  kill(SCMP_SYS(pidfd_send_signal), "pidfd_send_signal");
  if (seccomp_rule_add(ctx, deny, SCMP_SYS(rt_sigqueueinfo), 1,
                       SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(self))) == 0 &&
      seccomp_rule_add(ctx, deny, SCMP_SYS(rt_tgsigqueueinfo), 1,
                       SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(self))) == 0)
    denied.push_back("rt_sigqueueinfo/rt_tgsigqueueinfo to other processes");
  // Acting on other processes of the same user without signals: resource limits (prlimit on the
  // controller: RLIMIT_CPU kills it, RLIMIT_NOFILE 0 stops it writing the result), scheduling
  // priority and policy (slowing the baselines), I/O priority, memory placement. glibc's own uses
  // (getrlimit/setrlimit, nice, sched_setscheduler(0, ...)) pass 0 for "this process". libseccomp
  // cannot compare one argument twice, so "another process" is "not 0".
  auto kill_unless_self = [&](int nr, unsigned arg, const char* name) {
    if (seccomp_rule_add(ctx, deny, nr, 1, SCMP_CMP(arg, SCMP_CMP_NE, 0)) == 0) denied.push_back(name);
  };
  kill_unless_self(SCMP_SYS(prlimit64), 0, "prlimit64 on another process");
  kill_unless_self(SCMP_SYS(setpriority), 1, "setpriority of another process");
  kill_unless_self(SCMP_SYS(sched_setscheduler), 0, "sched_setscheduler of another process");
  kill_unless_self(SCMP_SYS(sched_setparam), 0, "sched_setparam of another process");
  kill_unless_self(SCMP_SYS(sched_setattr), 0, "sched_setattr of another process");
  kill_unless_self(SCMP_SYS(ioprio_set), 1, "ioprio_set of another process");
  kill_unless_self(SCMP_SYS(migrate_pages), 0, "migrate_pages of another process");
  kill_unless_self(SCMP_SYS(move_pages), 0, "move_pages of another process");
  kill(SCMP_SYS(process_madvise), "process_madvise");
  kill(SCMP_SYS(process_mrelease), "process_mrelease");
  kill(SCMP_SYS(kcmp), "kcmp");
  // Observation of other processes, and kernel interfaces that bypass this filter (io_uring runs
  // socket/connect operations without the system calls being seen here).
  kill(SCMP_SYS(perf_event_open), "perf_event_open");
  kill(SCMP_SYS(bpf), "bpf");
  kill(SCMP_SYS(io_uring_setup), "io_uring_setup");
  kill(SCMP_SYS(io_uring_enter), "io_uring_enter");
  kill(SCMP_SYS(io_uring_register), "io_uring_register");
  // State shared between processes of the user that outlives the worker: a channel to other
  // candidates or to a later evaluation (keyrings, System V IPC, POSIX message queues).
  kill(SCMP_SYS(add_key), "add_key");
  kill(SCMP_SYS(request_key), "request_key");
  kill(SCMP_SYS(keyctl), "keyctl");
  kill(SCMP_SYS(shmget), "shmget");
  kill(SCMP_SYS(msgget), "msgget");
  kill(SCMP_SYS(semget), "semget");
  kill(SCMP_SYS(mq_open), "mq_open");
  // Files opened for writing, with a listener: the controller checks each path against the
  // worker's writable places and records an attempt outside them (landlock refuses it either way;
  // without this it was refused silently: a candidate writing to the controller's open files
  // through /proc/<pid>/fd). One rule per flag that makes an open a write.
  if (notify) {
    int rules_added = 0;
    for (const unsigned flag : {unsigned(O_WRONLY), unsigned(O_RDWR), unsigned(O_CREAT), unsigned(O_TRUNC)}) {
      rules_added +=
          seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, flag, flag)) == 0;
      rules_added +=
          seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, flag, flag)) == 0;
    }
    rules_added += seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(creat), 0) == 0;
    rules_added += seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat2), 0) == 0;  // flags behind a pointer
    rules_added += seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(truncate), 0) == 0;
    if (rules_added > 0) denied.push_back("files opened for writing: checked by the controller");
  }
  // Page faults handled by the candidate: a handler for SIGSEGV or SIGBUS (or a userfaultfd)
  // runs the candidate's code when the judge touches a page it protected, e.g. to compute the
  // outputs when the worker reads them after the clock stopped. The worker's own reporter was
  // installed before this filter (fault_report.hpp); a new handler is refused (EPERM), and
  // querying the current one stays allowed.
  for (const int sig : {SIGSEGV, SIGBUS})
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(rt_sigaction), 2,
                         SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(sig)), SCMP_A1(SCMP_CMP_NE, 0)) == 0)
      denied.push_back(sig == SIGSEGV ? "a SIGSEGV handler (EPERM)" : "a SIGBUS handler (EPERM)");
  kill(SCMP_SYS(userfaultfd), "userfaultfd");
  // The worker's code is sealed (seal.hpp); sealing is refused afterwards, so that the candidate
  // cannot seal the judge's buffers and keep an input writable or an output unreadable.
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), sys_mseal, 0) == 0) denied.push_back("mseal (EPERM)");
  // Every thread gets the filter, not only the calling one.
  seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
  const int rc = seccomp_load(ctx);
  if (rc == 0 && notify) *rules.listener = seccomp_notify_fd(ctx);
  seccomp_release(ctx);
  if (rc != 0) return json{{"enabled", false}, {"reason", std::string("seccomp_load: ") + std::strerror(-rc)}};
  return json{{"enabled", true},
              {"denied", denied},
              {"action", notify && !rules.fatal_denials
                             ? "refused (EPERM) and reported to the controller, which records it as a violation"
                             : "kill process (SIGSYS)"}};
#else
  (void)rules;
  return json{{"enabled", false}, {"reason", "built without libseccomp"}};
#endif
}

bool hand_over_listener(int handoff, int listener) {
  bool taken = false;
  if (send_descriptor(handoff, listener)) {
    pollfd p{handoff, POLLIN, 0};
    char ack = 0;
    taken = ::poll(&p, 1, 30000) == 1 && ::recv(handoff, &ack, 1, 0) == 1 && ack == 1;
  }
  ::close(listener);
  ::close(handoff);
  return taken;
}

}  // namespace kjudge::sandbox
