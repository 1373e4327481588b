// `kjudge report SOURCE... [--html OUT]` (docs/reports.md): reports of stored or written results.
#pragma once

namespace CLI {
class App;
}

namespace kjudge::cli {

// Adds the `report` subcommand to the application.
void add_report_command(CLI::App& app);

// After parsing: if `report` was given, runs it, sets `exit_status` and returns true.
bool run_report_command_if_selected(int& exit_status);

}  // namespace kjudge::cli
