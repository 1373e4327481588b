// The cpu backend: host buffers from mmap with canary guard zones, a steady-clock timer and an
// LLC flush.
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <new>
#include <map>
#include <thread>

#include "core/error.hpp"
#include "oracle/oracle.hpp"
#include "timing/cpu_timer.hpp"
#include "worker/backend.hpp"

namespace kjudge {

namespace {

// Inputs are mapped read-only while the candidate runs (the ABI passes them const): a write to
// one faults, and this handler names the buffer in the worker's log before the default action
// ends the process, so that the controller can give the verdict input_modified (or
// out_of_bounds_write for a guard zone) instead of a bare crash. A table of fixed size and
// async-signal-safe formatting only; slots are claimed and released by the worker's thread.
struct read_only_region {
  std::atomic<bool> used{false};
  std::uintptr_t base = 0, data = 0, data_end = 0, end = 0;
  char label[64] = {0};
};
constexpr int max_read_only_regions = 64;
read_only_region g_read_only[max_read_only_regions];

// Output and workspace mappings recently released (a ring): a fault there is a write after the
// call returned and the judge freed the buffer, i.e. work left running (rule deferred_work).
struct released_region {
  std::atomic<bool> used{false};
  std::uintptr_t base = 0, end = 0;
  char label[64] = {0};
};
constexpr int max_released_regions = 64;
released_region g_released[max_released_regions];
int g_released_next = 0;

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

void on_read_only_fault(int sig, siginfo_t* si, void*) {
  const auto addr = reinterpret_cast<std::uintptr_t>(si->si_addr);
  for (const auto& r : g_read_only) {
    if (!r.used.load(std::memory_order_acquire) || addr < r.base || addr >= r.end) continue;
    char line[256];
    char* p = line;
    const char* end = line + sizeof line - 1;
    append(p, end, "\nkjudge-worker: input_write buffer='");
    append(p, end, r.label);
    if (addr < r.data) {
      append(p, end, "' region=guard_before offset=");
      append_number(p, end, r.data - addr);
    } else if (addr >= r.data_end) {
      append(p, end, "' region=guard_after offset=");
      append_number(p, end, addr - r.data_end);
    } else {
      append(p, end, "' region=data offset=");
      append_number(p, end, addr - r.data);
    }
    append(p, end, "\n");
    ssize_t w = ::write(2, line, static_cast<std::size_t>(p - line));
    (void)w;
    ::signal(sig, SIG_DFL);
    return;
  }
  for (const auto& r : g_released) {
    if (!r.used.load(std::memory_order_acquire) || addr < r.base || addr >= r.end) continue;
    char line[256];
    char* p = line;
    const char* end = line + sizeof line - 1;
    append(p, end, "\nkjudge-worker: late_write buffer='");
    append(p, end, r.label);
    append(p, end, "' offset=");
    append_number(p, end, addr - r.base);
    append(p, end, "\n");
    ssize_t w = ::write(2, line, static_cast<std::size_t>(p - line));
    (void)w;
    break;
  }
  // Back to the default action: the faulting write runs again and the process dies of SIGSEGV.
  ::signal(sig, SIG_DFL);
}

void install_read_only_handler() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  struct sigaction sa {};
  sa.sa_sigaction = &on_read_only_fault;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGSEGV, &sa, nullptr);
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const auto p = line.find(':');
      return p == std::string::npos ? line : line.substr(p + 2);
    }
  return "unknown";
}

class cpu_backend final : public backend {
 public:
  std::string_view name() const override { return "cpu"; }

  json environment() override {
    utsname u{};
    ::uname(&u);
    return json{{"backend", "cpu"},
                {"cpu", cpu_model()},
                {"logical_cores", std::thread::hardware_concurrency()},
                {"llc_bytes", last_level_cache_bytes()},
                {"cold_flush", can_flush_lines() ? "clflush of the call's buffers" : "rewrite of 2 x LLC"},
                {"kernel", std::string(u.sysname) + " " + u.release},
                {"clock", "std::chrono::steady_clock"}};
  }

  guarded_buffer allocate(std::size_t bytes, std::string label) override {
    // [guard][data][guard]: the data starts 64-byte aligned right after the front guard and the
    // back guard starts at the first byte after the data, so a one-element overrun lands on it.
    const std::size_t total = guard_bytes + bytes + guard_bytes;
    void* base = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    auto* p = static_cast<unsigned char*>(base);
    std::memset(p, canary_byte, guard_bytes);
    std::memset(p + guard_bytes + bytes, canary_byte, guard_bytes);
    m_live[base] = total;
    const auto lo = reinterpret_cast<std::uintptr_t>(base), hi = lo + total;
    for (auto& r : g_released)
      if (r.used.load(std::memory_order_relaxed) && r.base < hi && lo < r.end) r.used.store(false, std::memory_order_release);
    guarded_buffer b;
    b.base = base;
    b.data = p + guard_bytes;
    b.bytes = bytes;
    b.label = std::move(label);
    return b;
  }

  void make_read_only(guarded_buffer& b) override {
    if (b.base == nullptr) return;
    const std::size_t total = guard_bytes + b.bytes + guard_bytes;
    for (auto& r : g_read_only) {
      if (r.used.load(std::memory_order_relaxed)) continue;
      r.base = reinterpret_cast<std::uintptr_t>(b.base);
      r.data = reinterpret_cast<std::uintptr_t>(b.data);
      r.data_end = r.data + b.bytes;
      r.end = r.base + total;
      std::strncpy(r.label, b.label.c_str(), sizeof r.label - 1);
      r.used.store(true, std::memory_order_release);
      install_read_only_handler();
      ::mprotect(b.base, total, PROT_READ);
      return;
    }
    // More live inputs than slots: this one stays writable (its bytes are still compared after
    // the call).
  }

  void release(guarded_buffer& b) override {
    if (b.base != nullptr) {
      bool was_input = false;
      for (auto& r : g_read_only)
        if (r.used.load(std::memory_order_relaxed) && r.base == reinterpret_cast<std::uintptr_t>(b.base)) {
          r.used.store(false, std::memory_order_release);
          was_input = true;
        }
      if (!was_input) {
        // Remember where outputs and workspace were; an address is forgotten when a new
        // mapping takes it (allocate()), since a write there is then the new buffer's.
        auto& r = g_released[g_released_next++ % max_released_regions];
        r.used.store(false, std::memory_order_release);
        r.base = reinterpret_cast<std::uintptr_t>(b.data);
        r.end = r.base + b.bytes;
        std::strncpy(r.label, b.label.c_str(), sizeof r.label - 1);
        r.used.store(true, std::memory_order_release);
        install_read_only_handler();
      }
      m_live.erase(b.base);
      ::munmap(b.base, guard_bytes + b.bytes + guard_bytes);
    }
    b = guarded_buffer{};
  }

  void upload(guarded_buffer& b, const void* host, std::size_t bytes) override {
    std::memcpy(b.data, host, std::min(bytes, b.bytes));
  }

  void download(const guarded_buffer& b, void* host, std::size_t bytes) override {
    std::memcpy(host, b.data, std::min(bytes, b.bytes));
  }

  void poison(guarded_buffer& b, dtype t, std::size_t numel) override {
    poison_buffer(b.data, t, numel);
  }

  std::vector<guard_violation> check_guards(const guarded_buffer& b) override {
    std::vector<guard_violation> v;
    const auto* p = static_cast<const unsigned char*>(b.base);
    auto scan = [&](const unsigned char* zone, bool before) {
      std::size_t changed = 0, nearest = guard_bytes;
      for (std::size_t i = 0; i < guard_bytes; ++i) {
        if (zone[i] != canary_byte) {
          ++changed;
          const std::size_t dist = before ? guard_bytes - i : i;  // bytes from the data edge
          nearest = std::min(nearest, dist);
        }
      }
      if (changed) v.push_back(guard_violation{b.label, before ? "before" : "after", nearest, changed});
    };
    scan(p, true);
    scan(p + guard_bytes + b.bytes, false);
    return v;
  }

  void* stream() override { return nullptr; }
  void synchronize() override {}

  // Cold samples: every line of every live buffer of the call (inputs just generated, poisoned
  // outputs, workspace) is evicted from all cache levels, so the call reads its data from DRAM
  // as it would in a pipeline where the data was produced long before. Costs about
  // bytes / 64 clflush instructions instead of rewriting 2 x LLC.
  void flush_cache() override {
    if (can_flush_lines()) {
      for (const auto& [base, total] : m_live) flush_lines(base, total);
      return;
    }
    if (!m_flusher) m_flusher = std::make_unique<cache_flusher>();
    m_flusher->flush();
  }

  // The OS preempting the call inflates its time the way a throttled clock does on a GPU: the
  // involuntary context switches of the whole process during the call are reported so that the
  // controller can set such samples aside (DESIGN.md §4's discarded samples, CPU form).
  timed_call time(const std::function<int()>& call) override {
    rusage before{}, after{};
    ::getrusage(RUSAGE_SELF, &before);
    const host_timing h = time_host_call(call);
    ::getrusage(RUSAGE_SELF, &after);
    timed_call t;
    t.rc = h.rc;
    t.seconds = h.seconds;
    t.host_seconds = h.seconds;
    t.extra = json{{"involuntary_switches", after.ru_nivcsw - before.ru_nivcsw}};
    return t;
  }

 private:
  std::unique_ptr<cache_flusher> m_flusher;
  std::map<void*, std::size_t> m_live;  // base -> mapped bytes
};

}  // namespace

std::unique_ptr<backend> make_cpu_backend() { return std::make_unique<cpu_backend>(); }

}  // namespace kjudge
