// Lines a worker writes to its log before it dies of a fault the candidate caused, and their
// parsers on the controller's side: a write to a read-only input, to a buffer released after the
// call, or to the worker's sealed code.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kjudge {

// The line a cpu worker writes to its log when the candidate writes to a read-only input mapping
// (worker/cpu_backend.cpp), before it dies of SIGSEGV:
//   kjudge-worker: input_write buffer='input x' region=data|guard_before|guard_after offset=N
inline constexpr std::string_view input_write_marker = "kjudge-worker: input_write buffer='";
struct input_write_report {
  std::string buffer;      // "input x"
  std::string region;      // data | guard_before | guard_after
  std::size_t offset = 0;  // bytes from the data's start (data) or from the data's edge (guards)
};
// The last such line in a worker's log tail, if any. The log is the candidate's to write too; a
// forged line can only earn its writer a hack verdict.
std::optional<input_write_report> parse_input_write(const std::string& log);

// The line a cpu worker writes when a write faults in an output or workspace mapping the judge
// released after the call (work still running after kj_run returned):
//   kjudge-worker: late_write buffer='output y' offset=N
inline constexpr std::string_view late_write_marker = "kjudge-worker: late_write buffer='";
// A write to a sealed page of the worker's code (worker/detail/seal.hpp), named by the worker's
// fault reporter: "kjudge-worker: sealed_write region='NAME PERMS' offset=N".
inline constexpr std::string_view sealed_write_marker = "kjudge-worker: sealed_write region='";
std::optional<input_write_report> parse_sealed_write(const std::string& log);
std::optional<input_write_report> parse_late_write(const std::string& log);  // region "released"

}  // namespace kjudge
