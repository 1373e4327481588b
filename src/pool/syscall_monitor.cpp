#include "pool/syscall_monitor.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

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
    char byte = 0;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    iovec iov{&byte, 1};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(handoff, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    int listener = -1;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); n > 0 && c != nullptr; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        std::memcpy(&listener, CMSG_DATA(c), sizeof listener);
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
      denied_call d;
      d.pid = static_cast<pid_t>(req->pid);
      char* name = seccomp_syscall_resolve_num_arch(req->data.arch, req->data.nr);
      d.syscall = name != nullptr ? name : "syscall " + std::to_string(req->data.nr);
      std::free(name);
      d.at_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
      resp->id = req->id;
      resp->val = 0;
      resp->error = -EPERM;
      resp->flags = 0;
      (void)seccomp_notify_respond(fd, resp);
      std::lock_guard<std::mutex> lock(m_mutex);
      if (const auto it = m_listeners.find(fd); it != m_listeners.end()) {
        auto& list = m_denied[it->second];
        if (list.size() < 1000) list.push_back(std::move(d));  // bounded: a loop of attempts
      }
    }
    seccomp_notify_free(req, resp);
#else
    (void)fd;
#endif
  }

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
