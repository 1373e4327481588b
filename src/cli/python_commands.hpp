// Commands of the Python side (docs/python.md): `kjudge import kernelbench|gpumode ...`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace kjudge::cli {

// Registers the subcommands on the application (before parsing).
void add_python_commands(CLI::App& app);

// `--torch LIST` of eval/validate/demo: comma-separated torch baseline kinds (torch:eager,
// torch:compile:default, torch:compile:max-autotune-no-cudagraphs, torch:compile:max-autotune)
// or "none"; for eval_options::torch_baselines. Throws usage_error for an unknown kind.
std::vector<std::string> parse_torch_baselines(const std::string& list);

// Imports one KernelBench-form file as problem `rel_name` under out_root (inspected in a
// kjudge-worker-py process, as `kjudge import kernelbench` does) and returns its directory.
// Throws usage_error with the inspector's reason when the file cannot be imported.
std::filesystem::path import_kernelbench_file(const std::filesystem::path& file, const std::filesystem::path& out_root,
                                              const std::string& rel_name, int seed = 42, double timeout_s = 300);

// After parsing: runs the selected subcommand of these, setting the exit status; false when none
// of them was selected.
bool run_python_command_if_selected(int& status);

}  // namespace kjudge::cli
