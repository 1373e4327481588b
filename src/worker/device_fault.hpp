// A fault of the device caused by the code the worker loaded (an illegal address, a launch
// failure, a device-side assert, out of device memory): a verdict for the candidate, never a bug
// of the judge. Thrown by device backends; the worker answers it with an error of `kind` and,
// when `fatal` (the device context is unusable after a sticky error), exits after answering so
// that the next candidate gets a fresh process and a healthy context.
#pragma once

#include <stdexcept>
#include <string>

namespace kjudge {

class device_fault : public std::runtime_error {
 public:
  device_fault(const std::string& message, std::string kind, bool fatal)
      : std::runtime_error(message), m_kind(std::move(kind)), m_fatal(fatal) {}
  // "runtime_error" or "resource_limit" (the worker protocol's error kinds).
  [[nodiscard]] const std::string& kind() const { return m_kind; }
  [[nodiscard]] bool fatal() const { return m_fatal; }

 private:
  std::string m_kind;
  bool m_fatal;
};

}  // namespace kjudge
