// The environment variables kjudge reads or sets, in one table: `kjudge --help` prints it, and a
// test (Cli.HelpNamesEveryEnvironmentVariableTheSourcesRead) keeps it complete against the
// sources, so that a switch that changes what the judge does cannot hide from the help.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace kjudge::cli {

enum class env_role {
  setting,     // a user's setting: where things are, which baselines, how much memory
  experiment,  // an experiment switch, off in a normal run; recorded in timing.experiment_switches
  internal,    // set by kjudge for its worker processes; read there
  proposer,    // set by kjudge loop for a proposer command
};

struct env_var {
  std::string_view name;
  env_role role;
  std::string_view what;
};

std::span<const env_var> environment_variables();

// The help's "Environment" section, grouped by role.
std::string environment_help();

}  // namespace kjudge::cli
