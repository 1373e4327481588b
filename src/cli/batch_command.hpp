// `kjudge batch RUN_DIR ...` (docs/batch.md): thin command line over src/batch/. The options are
// registered in add_batch_command and the run is run_batch_command_if_selected's, so that further
// modes (--slurm, --status) add to both without touching the rest.
#pragma once

namespace CLI {
class App;
}

namespace kjudge::cli {

// Adds the `batch` subcommand to the application.
void add_batch_command(CLI::App& app);

// After parsing: if `batch` was given, runs it, sets `exit_status` and returns true. argv is the
// whole command line (children judging on one device each rerun it). Errors propagate as
// usage_error (exit 2) and internal_error (exit 3).
bool run_batch_command_if_selected(int& exit_status, int argc, char** argv);

}  // namespace kjudge::cli
