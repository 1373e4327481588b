// Work a candidate does outside its own calls, measured by the controller while other parties are
// timed (rule background_work). A thread or process of the candidate's that runs between its
// calls takes cores, memory bandwidth or the GPU from the party being timed: it slowed the
// reference by up to 77% and cpu_fast by 54% on the 2-core development machine without gaining the
// candidate anything a rule saw (tests/redteam/cpu/background_spin_layernorm.cpp). The kernel's CPU
// accounting of the candidate's worker and every process below it (pool/process_census.hpp) is
// read before and after each other party's sample request.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "pool/worker_process.hpp"

namespace kjudge {

// The machine's CPU time spent outside a set of processes (the evaluation's) over a window: busy
// time from /proc/stat minus the set's own, in the kernel's ticks. Set-aside decisions rest on it
// (judge/detail/evaluation_timing.cpp): a process of the candidate's counts as the candidate's,
// so the candidate can neither forge this figure nor provoke it.
class machine_window {
 public:
  // processes: the controller first (counted alone), then the workers (counted with their
  // descendants).
  static machine_window open(const std::vector<pid_t>& processes);
  // Seconds of CPU time outside `processes` since open() (the same set, read again).
  [[nodiscard]] double foreign_seconds(const std::vector<pid_t>& processes) const;

 private:
  long long m_busy = 0, m_own = 0;
};

class background_meter {
 public:
  // Around one sample request of another party; `wall` is that request's wall time, seconds.
  void before_other(const worker_process& candidate);
  void after_other(const worker_process& candidate, double wall);

  [[nodiscard]] double cpu_seconds() const { return m_cpu; }
  [[nodiscard]] double wall_seconds() const { return m_wall; }
  [[nodiscard]] double fraction() const { return m_wall > 0 ? m_cpu / m_wall : 0.0; }
  // The rule: at least `min_cpu_s` of CPU time and `min_fraction` of the windows' wall time. An
  // idle honest worker uses ~0 (OpenMP pools wait passively: the worker's environment says so);
  // one spinning thread uses ~1.0 of the windows' time.
  [[nodiscard]] bool excessive() const { return m_cpu >= min_cpu_s && fraction() >= min_fraction; }
  [[nodiscard]] nlohmann::json evidence() const;

  static constexpr double min_cpu_s = 0.05;
  static constexpr double min_fraction = 0.05;

 private:
  double m_cpu = 0, m_wall = 0, m_start = 0;
  long m_windows = 0;
  long m_worst_window_ms = 0;
  double m_worst_fraction = 0;
  bool m_open = false;
  int m_max_descendants = 0;
};

}  // namespace kjudge
