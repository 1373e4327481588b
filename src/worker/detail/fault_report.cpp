#include "worker/detail/fault_report.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace kjudge::fault_report {

namespace {

// Fixed-size tables and async-signal-safe formatting only: the handler runs on a fault in any
// thread. Slots are claimed and released by the worker's own thread.
struct region {
  std::atomic<bool> used{false};
  std::uintptr_t base = 0, data = 0, data_end = 0, end = 0;
  char label[64] = {0};
};
constexpr int max_read_only = 64;
constexpr int max_released = 64;
constexpr int max_sealed = 64;
region g_read_only[max_read_only];
region g_released[max_released];
region g_sealed[max_sealed];
int g_released_next = 0;
std::atomic<bool> g_installed{false};

void append(char*& p, const char* end, const char* s) {
  while (*s && p < end) *p++ = *s++;
}

void append_number(char*& p, const char* end, std::uintptr_t v) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v && n < 24);
  while (n > 0 && p < end) *p++ = digits[--n];
}

void write_line(const char* line, const char* p) {
  const ssize_t w = ::write(2, line, static_cast<std::size_t>(p - line));
  (void)w;
}

const region* find(const region* table, int n, std::uintptr_t addr) {
  for (int i = 0; i < n; ++i)
    if (table[i].used.load(std::memory_order_acquire) && addr >= table[i].base && addr < table[i].end) return &table[i];
  return nullptr;
}

void on_fault(int, siginfo_t* si, void*) {
  const auto addr = reinterpret_cast<std::uintptr_t>(si->si_addr);
  char line[256];
  char* p = line;
  const char* end = line + sizeof line - 1;
  if (const region* r = find(g_read_only, max_read_only, addr)) {
    append(p, end, "\nkjudge-worker: input_write buffer='");
    append(p, end, r->label);
    if (addr < r->data) {
      append(p, end, "' region=guard_before offset=");
      append_number(p, end, r->data - addr);
    } else if (addr >= r->data_end) {
      append(p, end, "' region=guard_after offset=");
      append_number(p, end, addr - r->data_end);
    } else {
      append(p, end, "' region=data offset=");
      append_number(p, end, addr - r->data);
    }
  } else if (const region* s = find(g_sealed, max_sealed, addr)) {
    append(p, end, "\nkjudge-worker: sealed_write region='");
    append(p, end, s->label);
    append(p, end, "' offset=");
    append_number(p, end, addr - s->base);
  } else if (const region* l = find(g_released, max_released, addr)) {
    append(p, end, "\nkjudge-worker: late_write buffer='");
    append(p, end, l->label);
    append(p, end, "' offset=");
    append_number(p, end, addr - l->base);
  } else {
    return;  // SA_RESETHAND: the faulting access runs again and the default action ends the process
  }
  append(p, end, "\n");
  write_line(line, p);
}

void set_label(region& r, const char* label) {
  std::strncpy(r.label, label, sizeof r.label - 1);
  r.label[sizeof r.label - 1] = 0;
}

}  // namespace

void install() {
  if (g_installed.exchange(true)) return;
  struct sigaction sa {};
  sa.sa_sigaction = &on_fault;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGSEGV, &sa, nullptr);
}

bool add_read_only(std::uintptr_t base, std::uintptr_t data, std::uintptr_t data_end, std::uintptr_t end,
                   const char* label) {
  for (auto& r : g_read_only) {
    if (r.used.load(std::memory_order_relaxed)) continue;
    r.base = base;
    r.data = data;
    r.data_end = data_end;
    r.end = end;
    set_label(r, label);
    r.used.store(true, std::memory_order_release);
    return true;
  }
  return false;
}

bool remove_read_only(std::uintptr_t base) {
  bool found = false;
  for (auto& r : g_read_only)
    if (r.used.load(std::memory_order_relaxed) && r.base == base) {
      r.used.store(false, std::memory_order_release);
      found = true;
    }
  return found;
}

void add_released(std::uintptr_t base, std::uintptr_t end, const char* label) {
  auto& r = g_released[g_released_next++ % max_released];
  r.used.store(false, std::memory_order_release);
  r.base = base;
  r.end = end;
  set_label(r, label);
  r.used.store(true, std::memory_order_release);
}

void forget_released(std::uintptr_t base, std::uintptr_t end) {
  for (auto& r : g_released)
    if (r.used.load(std::memory_order_relaxed) && r.base < end && base < r.end)
      r.used.store(false, std::memory_order_release);
}

void add_sealed(std::uintptr_t base, std::uintptr_t end, const char* label) {
  for (auto& r : g_sealed) {
    if (r.used.load(std::memory_order_relaxed)) continue;
    r.base = base;
    r.end = end;
    set_label(r, label);
    r.used.store(true, std::memory_order_release);
    return;
  }
}

}  // namespace kjudge::fault_report
