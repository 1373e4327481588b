// The builder (DESIGN.md §1): candidate source -> shared object, with the system compiler (cpu)
// or nvcc (cuda) run in the build's sandbox (kjudge-confine: the toolchain, the source and the ABI
// headers readable, only a staging directory writable, a clean environment), a compile time
// limit, and a content-addressed cache keyed by the SHA-256 of the source, the ABI header, the
// flags and the compiler's version. Each entry is read-only and records its library's SHA-256,
// which every reuse verifies (an entry that fails is rebuilt, and the result says so).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kjudge {

struct build_request {
  std::filesystem::path source;
  std::string device = "cpu";  // cpu: g++; cuda: nvcc
  double timeout_seconds = 120;
  std::vector<std::string> extra_flags;
};

struct build_result {
  bool ok = false;
  std::filesystem::path library;  // the .so on success
  std::string source_sha256;
  std::string diagnostics;           // the compiler's own message (errors and warnings)
  std::string compiler;              // version line
  std::vector<std::string> command;  // the compile command
  double seconds = 0.0;
  bool cached = false;
  bool timed_out = false;
  nlohmann::json resources;  // cuda: ptxas registers/spills/shared memory per kernel
  std::string cache_note;    // why a cached build was not used (it failed its check), or ""
};

// Throws usage_error if the source cannot be read or has the wrong extension for the device.
build_result build_candidate(const build_request& r);

// Parses `ptxas info` lines of nvcc -Xptxas -v into [{kernel, registers, spill_stores,
// spill_loads, shared_bytes, stack_bytes}].
nlohmann::json parse_ptxas_resources(const std::string& diagnostics);

}  // namespace kjudge
