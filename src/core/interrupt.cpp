#include "core/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <thread>

namespace kjudge::interrupt {

namespace {

std::mutex g_mutex;
std::map<int, std::function<void(int)>>& hooks() {
  static std::map<int, std::function<void(int)>> h;
  return h;
}
int g_next = 0;

sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

[[noreturn]] void on_signal(int sig) {
  std::map<int, std::function<void(int)>> run;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    run = hooks();
  }
  for (const auto& [id, hook] : run) {
    try {
      hook(sig);
    } catch (...) {  // NOLINT(bugprone-empty-catch): a failing hook must not keep kjudge alive
    }
  }
  // At once, so that nothing of kjudge's goes on working (or records a verdict) after the signal.
  // The guardian sees kjudge gone: it sends SIGTERM to every group kjudge started, SIGKILL to
  // what is left after the grace period, and removes the scratch directories.
  ::_exit(128 + sig);
}

}  // namespace

void install() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  const sigset_t set = interrupt_signals();
  ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set] {
    int sig = 0;
    while (::sigwait(&set, &sig) != 0) {
    }
    on_signal(sig);
  }).detach();
}

int add_hook(std::function<void(int)> hook) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const int id = ++g_next;
  hooks()[id] = std::move(hook);
  return id;
}

void remove_hook(int id) {
  std::lock_guard<std::mutex> lock(g_mutex);
  hooks().erase(id);
}

void unblock_in_child() {
  const sigset_t set = interrupt_signals();
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace kjudge::interrupt
