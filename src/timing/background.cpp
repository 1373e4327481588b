#include "timing/background.hpp"

#include <algorithm>

namespace kjudge {

namespace {

// The first process is the controller, alone (its children are the others); the rest with what
// they started.
long long own_ticks(const std::vector<pid_t>& processes) {
  long long t = 0;
  for (std::size_t k = 0; k < processes.size(); ++k)
    if (processes[k] > 0) t += process_ticks(processes[k], k > 0);
  return t;
}

}  // namespace

machine_window machine_window::open(const std::vector<pid_t>& processes) {
  machine_window w;
  w.m_busy = machine_busy_ticks();
  w.m_own = own_ticks(processes);
  return w;
}

double machine_window::foreign_seconds(const std::vector<pid_t>& processes) const {
  const long long busy = machine_busy_ticks() - m_busy;
  const long long own = own_ticks(processes) - m_own;
  return ticks_to_seconds(std::max(0LL, busy - own));
}

void background_meter::before_other(const worker_process& candidate) {
  const process_usage u = candidate.usage();
  m_open = u.readable;
  m_start = u.cpu_seconds;
  m_max_descendants = std::max(m_max_descendants, u.descendants);
}

void background_meter::after_other(const worker_process& candidate, double wall) {
  if (!m_open) return;
  m_open = false;
  const process_usage u = candidate.usage();
  if (!u.readable) return;
  const double used = std::max(0.0, u.cpu_seconds - m_start);
  m_cpu += used;
  m_wall += wall;
  ++m_windows;
  m_max_descendants = std::max(m_max_descendants, u.descendants);
  if (wall > 0 && used / wall > m_worst_fraction) {
    m_worst_fraction = used / wall;
    m_worst_window_ms = static_cast<long>(wall * 1e3);
  }
}

nlohmann::json background_meter::evidence() const {
  return {{"cpu_s", m_cpu},
          {"windows", m_windows},
          {"windows_wall_s", m_wall},
          {"fraction", fraction()},
          {"worst_window", {{"fraction", m_worst_fraction}, {"wall_ms", m_worst_window_ms}}},
          {"max_descendants", m_max_descendants},
          {"threshold", {{"cpu_s", min_cpu_s}, {"fraction", min_fraction}}},
          {"method",
           "CPU time of the candidate's worker and its descendants (/proc) during other parties' sample requests"}};
}

}  // namespace kjudge
