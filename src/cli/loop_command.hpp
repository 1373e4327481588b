// `kjudge loop ...` (issue 6, docs/proposer.md): thin command line over src/loop/.
#pragma once

namespace CLI {
class App;
}

namespace kjudge::cli {

// Adds the `loop` subcommand (with `loop report`) to the application.
void add_loop_command(CLI::App& app);

// After parsing: if `loop` was given, runs it, sets `exit_status` and returns true.
// Errors propagate as usage_error (exit 2) and internal_error (exit 3).
bool run_loop_command_if_selected(int& exit_status);

}  // namespace kjudge::cli
