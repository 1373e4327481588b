// The CPU form of the timing core (DESIGN.md §4): a steady-clock timer around one call and a
// last-level-cache flush between cold samples.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace kjudge {

// Size of the last-level cache in bytes (sysfs/sysconf), or 32 MiB when unknown.
std::size_t last_level_cache_bytes();

// Writes then reads a buffer of `bytes` (default: 2 x LLC) so that a following call finds none
// of its data in any cache level. Costs about bytes / memory bandwidth; never timed.
class cache_flusher {
 public:
  explicit cache_flusher(std::size_t bytes = 0);
  void flush();
  [[nodiscard]] std::size_t bytes() const { return m_bytes; }

 private:
  std::size_t m_bytes;
  std::unique_ptr<unsigned char[]> m_buf;
  unsigned m_round = 0;
};

// Evicts [p, p+bytes) from every cache level (clflush on x86); a no-op elsewhere, where
// can_flush_lines() is false and cache_flusher must be used instead.
void flush_lines(const void* p, std::size_t bytes);
bool can_flush_lines();

struct host_timing {
  int rc = 0;
  double seconds = 0.0;
  long long end_ns = 0;  // the second reading: CLOCK_MONOTONIC, ns (the controller's clock too)
};

// CLOCK_MONOTONIC seconds around `call` (a system call, not the vDSO: cpu_timer.cpp says why),
// with compiler barriers so that no work moves across the clock reads.
host_timing time_host_call(const std::function<int()>& call);

}  // namespace kjudge
