// `kjudge store merge OUT SRC...`: folds per-task stores into one (store/merge.hpp).
#pragma once

namespace CLI {
class App;
}

namespace kjudge::cli {

// Registers the subcommand on the application (before parsing).
void add_store_command(CLI::App& app);

// After parsing: runs it when it was selected, setting the exit status (0: merged); false when it
// was not selected.
bool run_store_command_if_selected(int& status);

}  // namespace kjudge::cli
