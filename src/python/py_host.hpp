// kjudge-worker-py's Python host (docs/python.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "worker/worker.hpp"

namespace kjudge::py {

// Starts the embedded interpreter with the given python3's environment (a venv's python3 makes
// its site-packages importable) and loads kjudge's glue. Throws std::runtime_error.
void start_interpreter(const std::string& python_executable);

// worker/worker.hpp program_loader: hello.library is the party's JSON description.
std::string load_program(const nlohmann::json& hello, hosted_program& out);

// Importers: runs the glue's main_inspect on a JSON request; returns its JSON answer.
std::string inspect(const std::string& python_executable, const std::string& request_json);

}  // namespace kjudge::py
