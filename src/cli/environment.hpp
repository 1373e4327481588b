// The environment variables kjudge reads or sets, in one table (environment.cpp): `kjudge --help`
// prints it, and a test (Cli.HelpNamesEveryEnvironmentVariableTheSourcesRead) keeps it complete
// against the sources, so that a switch that changes what the judge does cannot hide from the help.
#pragma once

#include <string>

namespace kjudge::cli {

// The help's "Environment" section, grouped by role.
std::string environment_help();

}  // namespace kjudge::cli
