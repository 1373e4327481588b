#include "protocol/log_markers.hpp"

#include <cstdlib>

namespace kjudge {

std::optional<input_write_report> parse_input_write(const std::string& log) {
  const auto at = log.rfind(input_write_marker);
  if (at == std::string::npos) return std::nullopt;
  const auto b0 = at + input_write_marker.size();
  const auto b1 = log.find('\'', b0);
  if (b1 == std::string::npos) return std::nullopt;
  input_write_report r;
  r.buffer = log.substr(b0, b1 - b0);
  const auto r0 = log.find("region=", b1);
  const auto o0 = log.find("offset=", b1);
  if (r0 == std::string::npos || o0 == std::string::npos) return std::nullopt;
  r.region = log.substr(r0 + 7, log.find(' ', r0) - (r0 + 7));
  if (r.region != "data" && r.region != "guard_before" && r.region != "guard_after") return std::nullopt;
  r.offset = std::strtoull(log.c_str() + o0 + 7, nullptr, 10);
  return r;
}

std::optional<input_write_report> parse_sealed_write(const std::string& log) {
  const auto at = log.rfind(sealed_write_marker);
  if (at == std::string::npos) return std::nullopt;
  const auto b0 = at + sealed_write_marker.size();
  const auto b1 = log.find('\'', b0);
  const auto o0 = log.find("offset=", b0);
  if (b1 == std::string::npos || o0 == std::string::npos) return std::nullopt;
  input_write_report r;
  r.buffer = log.substr(b0, b1 - b0);
  r.region = "sealed";
  r.offset = std::strtoull(log.c_str() + o0 + 7, nullptr, 10);
  return r;
}

std::optional<input_write_report> parse_late_write(const std::string& log) {
  const auto at = log.rfind(late_write_marker);
  if (at == std::string::npos) return std::nullopt;
  const auto b0 = at + late_write_marker.size();
  const auto b1 = log.find('\'', b0);
  const auto o0 = log.find("offset=", b0);
  if (b1 == std::string::npos || o0 == std::string::npos) return std::nullopt;
  input_write_report r;
  r.buffer = log.substr(b0, b1 - b0);
  r.region = "released";
  r.offset = std::strtoull(log.c_str() + o0 + 7, nullptr, 10);
  return r;
}

}  // namespace kjudge
