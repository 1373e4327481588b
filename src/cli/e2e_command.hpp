// `kjudge e2e MODEL.py --replace TARGET=CANDIDATE` (docs/e2e.md).
#pragma once

namespace CLI {
class App;
}

namespace kjudge::cli {

// Registers the subcommand on the application (before parsing).
void add_e2e_command(CLI::App& app);

// After parsing: runs it if it was selected, setting the exit status; false otherwise.
bool run_e2e_command_if_selected(int& status);

}  // namespace kjudge::cli
