// Progress display for long work on stderr: one self-rewriting line on a terminal, one line per
// phase change otherwise (CI logs), never on stdout (which carries results).
#pragma once

#include <chrono>
#include <string>

namespace kjudge {

class progress_line {
 public:
  explicit progress_line(bool enabled = true);
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;
  ~progress_line();
  void update(const std::string& label, const std::string& phase, int done, int total, const std::string& note);
  void clear();

 private:
  bool m_enabled;
  bool m_tty;
  std::string m_last_phase;
  std::size_t m_last_width = 0;
  std::chrono::steady_clock::time_point m_t0;
};

}  // namespace kjudge
