// Running a helper program (compiler, proposer) with a wall-clock limit and captured output.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kjudge {

struct command_result {
  int exit_status = -1;  // -1 if killed by a signal
  int signal = 0;
  bool timed_out = false;
  double seconds = 0.0;
  std::string output;  // stdout and stderr interleaved, truncated to max_output bytes
};

struct command_options {
  double timeout_seconds = 60;
  std::filesystem::path cwd;                     // empty: inherit
  std::map<std::string, std::string> extra_env;  // added to the inherited environment
  bool clean_env = false;                        // true: extra_env is the whole environment
  std::size_t max_output = 1u << 20;             // bytes kept
};

// Runs argv[0] (looked up in PATH) in its own process group; on timeout the group is killed.
command_result run_command(const std::vector<std::string>& argv, const command_options& o = {});

}  // namespace kjudge
