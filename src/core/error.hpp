// Exceptions for faults of the judge's user or environment. A candidate's failure is never an
// exception: it is a verdict (guards/verdict.hpp).
#pragma once

#include <stdexcept>
#include <string>

namespace kjudge {

// Bad usage or bad input (spec, file, flag): `kjudge` exits with status 2.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A fault of kjudge itself or its environment: exit status 3.
class internal_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "path:line: message" for errors located in an input file.
std::string located(const std::string& path, long line, const std::string& message);

}  // namespace kjudge
