#include "pool/syscall_monitor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "core/descriptor_passing.hpp"
#include "pool/detail/write_target.hpp"

#ifdef KJUDGE_HAVE_SECCOMP
#include <seccomp.h>
#endif

namespace kjudge::syscall_monitor {

namespace {

class monitor {
 public:
  monitor() : m_wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)), m_thread([this] { run(); }) {}
  // The controller exits with the monitor still running (it is never joined): the listeners close
  // with the process, and their callers see ENOSYS.
  monitor(const monitor&) = delete;
  monitor& operator=(const monitor&) = delete;
  ~monitor() { m_thread.detach(); }

  int expect(int handoff) {
    std::lock_guard<std::mutex> lock(m_mutex);
    const int key = ++m_next_key;
    m_handoffs[handoff] = key;
    m_denied[key];
    const std::uint64_t one = 1;
    (void)!::write(m_wake, &one, sizeof one);
    return key;
  }

  std::vector<denied_call> denied(int key) {
    std::lock_guard<std::mutex> lock(m_mutex);
    const auto it = m_denied.find(key);
    return it == m_denied.end() ? std::vector<denied_call>{} : it->second;
  }

 private:
  void run() {
    for (;;) {
      std::vector<pollfd> fds{{m_wake, POLLIN, 0}};
      std::size_t first_handoff = 0;
      {
        std::lock_guard<std::mutex> lock(m_mutex);
        for (const auto& [fd, key] : m_listeners) fds.push_back({fd, POLLIN, 0});
        first_handoff = fds.size();
        for (const auto& [fd, key] : m_handoffs) fds.push_back({fd, POLLIN, 0});
      }
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[0].revents & POLLIN) {
        std::uint64_t n = 0;
        (void)!::read(m_wake, &n, sizeof n);
      }
      for (std::size_t i = first_handoff; i < fds.size(); ++i)
        if (fds[i].revents != 0) take_listener(fds[i].fd);
      for (std::size_t i = 1; i < first_handoff; ++i) {
        if (fds[i].revents & POLLIN) answer(fds[i].fd);
        // Every process using the filter is gone: nothing more can come.
        if ((fds[i].revents & (POLLHUP | POLLERR | POLLNVAL)) != 0 && (fds[i].revents & POLLIN) == 0) {
          std::lock_guard<std::mutex> lock(m_mutex);
          m_listeners.erase(fds[i].fd);
          ::close(fds[i].fd);
        }
      }
    }
  }

  // A hand-off socket is readable: the worker's listener (registered and acknowledged), or the
  // worker closed its end without one (or died). Either way the socket is done.
  void take_listener(int handoff) {
    const auto got = receive_descriptor(handoff, MSG_DONTWAIT);
    if (got.bytes < 0 && (errno == EAGAIN || errno == EINTR)) return;
    const int listener = got.fd;
    std::lock_guard<std::mutex> lock(m_mutex);
    const int key = m_handoffs[handoff];
    m_handoffs.erase(handoff);
    if (listener >= 0) {
      m_listeners[listener] = key;
      const char ack = 1;
      (void)!::send(handoff, &ack, 1, MSG_NOSIGNAL);
    }
    ::close(handoff);
  }

  void answer(int fd) {
#ifdef KJUDGE_HAVE_SECCOMP
    seccomp_notif* req = nullptr;
    seccomp_notif_resp* resp = nullptr;
    if (seccomp_notify_alloc(&req, &resp) != 0) return;
    if (seccomp_notify_receive(fd, req) == 0) {
      resp->id = req->id;
      resp->val = 0;
      resp->flags = 0;
      resp->error = -EPERM;
      std::optional<denied_call> record = denied_call{};
      if (const auto w = write_open_of(req->data)) {
        // A file opened for writing: landlock decides, unless it reaches into another process.
        const auto path = target_of(fd, *req, *w);
        if (path.has_value()) {
          record->path = *path;
          resp->error = -EACCES;
        } else {
          record.reset();
          resp->error = 0;
          resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        }
      }
      (void)seccomp_notify_respond(fd, resp);
      if (record.has_value()) {
        record->pid = static_cast<pid_t>(req->pid);
        char* name = seccomp_syscall_resolve_num_arch(req->data.arch, req->data.nr);
        record->syscall = name != nullptr ? name : "syscall " + std::to_string(req->data.nr);
        std::free(name);
        record->at_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
        std::lock_guard<std::mutex> lock(m_mutex);
        if (const auto it = m_listeners.find(fd); it != m_listeners.end()) {
          auto& list = m_denied[it->second];
          if (list.size() < 1000) list.push_back(std::move(*record));  // bounded: a loop of attempts
        }
      }
    }
    seccomp_notify_free(req, resp);
#else
    (void)fd;
#endif
  }

#ifdef KJUDGE_HAVE_SECCOMP
  struct write_open {
    int dirfd = AT_FDCWD;
    std::uint64_t path = 0;  // address in the caller
  };

  // The notified calls that open (or truncate) a file for writing; nullopt for anything else,
  // including an openat2 that only reads (its flags are read from the caller's open_how).
  static std::optional<write_open> write_open_of(const seccomp_data& d) {
    constexpr std::uint64_t writes = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC;
    const auto dirfd = static_cast<int>(static_cast<std::int32_t>(d.args[0]));  // an int argument
    if (d.arch != seccomp_arch_native()) return std::nullopt;
    switch (d.nr) {
      case SYS_openat:
        if ((d.args[2] & writes) != 0) return write_open{dirfd, d.args[1]};
        return std::nullopt;
#ifdef SYS_open
      case SYS_open:
        if ((d.args[1] & writes) != 0) return write_open{AT_FDCWD, d.args[0]};
        return std::nullopt;
#endif
#ifdef SYS_creat
      case SYS_creat:
#endif
      case SYS_truncate:
        return write_open{AT_FDCWD, d.args[0]};
      case SYS_openat2:
        return write_open{dirfd, d.args[1]};  // flags checked in target_of
      default:
        return std::nullopt;
    }
  }

  // The path a write-open names when it is another process's /proc entry (to be refused and
  // recorded); nullopt when it is not, or when the path cannot be read (the caller died, or its
  // memory is not readable): landlock refuses what it must either way.
  static std::optional<std::string> target_of(int fd, const seccomp_notif& req, const write_open& w) {
    const auto tid = static_cast<pid_t>(req.pid);
    if (req.data.nr == SYS_openat2) {
      std::uint64_t flags = 0;  // struct open_how starts with its flags
      iovec local{&flags, sizeof flags};
      iovec remote{reinterpret_cast<void*>(req.data.args[2]), sizeof flags};  // NOLINT: the caller's address
      if (::process_vm_readv(tid, &local, 1, &remote, 1, 0) != sizeof flags) return std::nullopt;
      if ((flags & std::uint64_t(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) == 0) return std::nullopt;
    }
    const auto raw = detail::read_remote_string(tid, w.path);
    if (!raw.has_value()) return std::nullopt;
    std::string base = "/";
    if (!raw->starts_with('/')) {
      const auto b = detail::base_directory(tid, w.dirfd);
      if (!b.has_value()) return std::nullopt;
      base = *b;
    }
    const auto tgid = detail::thread_group_of(tid).value_or(tid);
    const auto path = detail::joined_path(base, *raw);
    const auto own_thread = [tgid](pid_t n) {
      std::error_code ec;
      return std::filesystem::exists("/proc/" + std::to_string(tgid) + "/task/" + std::to_string(n), ec);
    };
    // The request must still be live: otherwise `tid` may be another process by now.
    if (seccomp_notify_id_valid(fd, req.id) != 0) return std::nullopt;
    if (!detail::names_other_process(path, tgid, own_thread)) return std::nullopt;
    return path;
  }
#endif

  std::mutex m_mutex;
  std::map<int, int> m_listeners;  // listener fd -> key
  std::map<int, int> m_handoffs;   // hand-off socket -> key, until the worker used it
  std::map<int, std::vector<denied_call>> m_denied;
  int m_next_key = 0;
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
  int m_wake;
  std::thread m_thread;
};

monitor& the_monitor() {
  static monitor* m = new monitor();  // never destroyed: see ~monitor
  return *m;
}

}  // namespace

int expect(int handoff) {
  return the_monitor().expect(handoff);
}

std::vector<denied_call> denied(int key) {
  return the_monitor().denied(key);
}

}  // namespace kjudge::syscall_monitor
