// The cpu backend: host buffers from mmap with canary guard zones, a steady-clock timer and an
// LLC flush.
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <thread>

#include "core/error.hpp"
#include "inputs/poison.hpp"
#include "worker/backend.hpp"
#include "worker/cpu_timer.hpp"
#include "worker/detail/fault_report.hpp"

namespace kjudge {

namespace {

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
    // [shift][guard][data][guard]: the data starts 64-byte aligned right after the front guard
    // and the back guard starts at the first byte after the data, so a one-element overrun lands
    // on it. The shift moves the whole from one allocation to the next (allocation_shift).
    const std::size_t shift = m_shift.next();
    const std::size_t total = shift + guard_bytes + bytes + guard_bytes;
    void* mapping = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) throw std::bad_alloc();
    auto* p = static_cast<unsigned char*>(mapping) + shift;
    std::memset(p, canary_byte, guard_bytes);
    std::memset(p + guard_bytes + bytes, canary_byte, guard_bytes);
    m_live[mapping] = total;
    const auto lo = reinterpret_cast<std::uintptr_t>(mapping);
    fault_report::forget_released(lo, lo + total);
    guarded_buffer b;
    b.base = p;
    b.data = p + guard_bytes;
    b.bytes = bytes;
    b.label = std::move(label);
    b.allocation = mapping;
    b.allocation_bytes = total;
    return b;
  }

  // Inputs are mapped read-only while the candidate runs (the ABI passes them const): a write to
  // one faults, and the worker's fault reporter names the buffer (rule input_modified, or
  // out_of_bounds_write for a guard zone).
  void make_read_only(guarded_buffer& b) override {
    if (b.base == nullptr) return;
    const std::size_t total = guard_bytes + b.bytes + guard_bytes;
    const auto base = reinterpret_cast<std::uintptr_t>(b.base), data = reinterpret_cast<std::uintptr_t>(b.data);
    // More live inputs than the reporter's slots: this one stays writable (its bytes are still
    // compared after the call). The whole mapping is protected (mprotect takes whole pages).
    if (!fault_report::add_read_only(base, data, data + b.bytes, base + total, b.label.c_str())) return;
    ::mprotect(b.allocation, b.allocation_bytes, PROT_READ);
  }

  // Outputs as the call returned them must be readable by the worker without running any code of
  // the candidate's: a mapping the candidate protected (to compute in a fault handler when the
  // judge reads it, after the clock stopped) is made readable and writable again first. The
  // sandbox refuses the candidate a SIGSEGV/SIGBUS handler, so such an output still holds the
  // poison when it is read (rule unwritten_output).
  void restore_access(const guarded_buffer& b) override {
    if (b.base == nullptr) return;
    ::mprotect(b.allocation, b.allocation_bytes, PROT_READ | PROT_WRITE);
  }

  void release(guarded_buffer& b) override {
    if (b.base != nullptr) {
      const auto base = reinterpret_cast<std::uintptr_t>(b.base);
      // Where outputs and workspace were is remembered; an address is forgotten when a new
      // mapping takes it (allocate()), since a write there is then the new buffer's.
      if (!fault_report::remove_read_only(base)) {
        const auto data = reinterpret_cast<std::uintptr_t>(b.data);
        fault_report::add_released(data, data + b.bytes, b.label.c_str());
      }
      m_live.erase(b.allocation);
      ::munmap(b.allocation, b.allocation_bytes);
    }
    b = guarded_buffer{};
  }

  void upload(guarded_buffer& b, const void* host, std::size_t bytes) override {
    std::memcpy(b.data, host, std::min(bytes, b.bytes));
  }

  void download(const guarded_buffer& b, void* host, std::size_t bytes) override {
    std::memcpy(host, b.data, std::min(bytes, b.bytes));
  }

  void poison(guarded_buffer& b, dtype t, std::size_t numel) override { poison_buffer(b.data, t, numel); }

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
    t.end_ns = h.end_ns;
    t.extra = json{{"involuntary_switches", after.ru_nivcsw - before.ru_nivcsw}};
    return t;
  }

 private:
  std::unique_ptr<cache_flusher> m_flusher;
  std::map<void*, std::size_t> m_live;  // allocation -> mapped bytes
  allocation_shift m_shift;
};

}  // namespace

std::unique_ptr<backend> make_cpu_backend() {
  return std::make_unique<cpu_backend>();
}

}  // namespace kjudge
