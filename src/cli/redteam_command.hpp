// `kjudge redteam`: runs the red-team and honest corpora (issue 5) and prints the table of
// attacks caught or missed and honest candidates passed or falsely rejected, with the totals.
#pragma once

namespace CLI {
class App;
}

namespace kjudge::cli {

// Registers the subcommand on the application (before parsing).
void add_redteam_command(CLI::App& app);

// After parsing: runs it when it was selected, setting the exit status (0: every attack caught
// and no false positive, 1: otherwise); false when it was not selected.
bool run_redteam_command_if_selected(int& status);

}  // namespace kjudge::cli
