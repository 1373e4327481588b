#include "core/error.hpp"

namespace kjudge {

std::string located(const std::string& path, long line, const std::string& message) {
  if (line > 0) return path + ":" + std::to_string(line) + ": " + message;
  return path + ": " + message;
}

}  // namespace kjudge
