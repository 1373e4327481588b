// Commands of the Python side (docs/python.md): `kjudge import kernelbench|gpumode ...`.
#pragma once

namespace CLI {
class App;
}

namespace kjudge::cli {

// Registers the subcommands on the application (before parsing).
void add_python_commands(CLI::App& app);

// After parsing: runs the selected subcommand of these, setting the exit status; false when none
// of them was selected.
bool run_python_command_if_selected(int& status);

}  // namespace kjudge::cli
