#pragma once

namespace kjudge::cli {

// Parses argv and runs the subcommand; returns the process exit status.
int run(int argc, char** argv);

}  // namespace kjudge::cli
