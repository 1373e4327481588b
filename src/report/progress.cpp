#include "report/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace kjudge {

progress_line::progress_line(bool enabled)
    : m_enabled(enabled), m_tty(::isatty(2) == 1), m_t0(std::chrono::steady_clock::now()) {}

progress_line::~progress_line() {
  clear();
}

void progress_line::update(const std::string& label, const std::string& phase, int done, int total,
                           const std::string& note) {
  if (!m_enabled) return;
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
  char buf[512];
  std::snprintf(buf, sizeof buf, "[%6.1fs] %s  %-7s %d/%d  %s", t, label.c_str(), phase.c_str(), done, total,
                note.c_str());
  std::string line = buf;
  if (m_tty) {
    if (line.size() > 120) line = line.substr(0, 117) + "...";
    std::string pad = m_last_width > line.size() ? std::string(m_last_width - line.size(), ' ') : "";
    std::fprintf(stderr, "\r%s%s", line.c_str(), pad.c_str());
    std::fflush(stderr);
    m_last_width = line.size();
  } else if (phase != m_last_phase) {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  m_last_phase = phase;
}

void progress_line::clear() {
  if (m_enabled && m_tty && m_last_width > 0) {
    std::fprintf(stderr, "\r%s\r", std::string(m_last_width, ' ').c_str());
    std::fflush(stderr);
    m_last_width = 0;
  }
}

}  // namespace kjudge
