// Runs the real kjudge binary and reads its JSON result.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/subprocess.hpp"

namespace kjudge::test {

inline std::filesystem::path test_dir() {
  static const auto d = [] {
    auto p = std::filesystem::temp_directory_path() / ("kjudge-it-" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    return p;
  }();
  return d;
}

// The requests of a run traced with KJUDGE_TRACE_REQUESTS ("t role pid type wait [part=s...]" per
// request), in order.
struct traced_request {
  std::string role, pid, type;
  double wait_s = 0;
  std::map<std::string, double> parts;  // the reply's phases_s (a reference request's parts)
};
inline std::vector<traced_request> read_request_trace(const std::filesystem::path& trace) {
  std::vector<traced_request> out;
  std::ifstream in(trace);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string t;
    traced_request r;
    ls >> t >> r.role >> r.pid >> r.type >> r.wait_s;
    for (std::string part; ls >> part;)
      if (const auto eq = part.find('='); eq != std::string::npos)
        r.parts[part.substr(0, eq)] = std::stod(part.substr(eq + 1));
    out.push_back(r);
  }
  return out;
}

inline std::string candidate(const std::string& name) { return std::string(KJUDGE_TEST_DATA) + "/candidates/" + name; }

// Every result document a test has the CLI write must validate against docs/result-schema.json
// (scripts/validate-result.py), whatever the test then looks at in it.
inline void expect_valid_result(const std::filesystem::path& file) {
  const auto v =
      run_command({"python3", std::string(KJUDGE_TEST_DATA) + "/../scripts/validate-result.py", file.string()});
  EXPECT_EQ(v.exit_status, 0) << file.string() << " does not validate against docs/result-schema.json:\n" << v.output;
}

// Reads a result document the CLI wrote, after validating it (expect_valid_result).
inline nlohmann::json read_result(const std::filesystem::path& file) {
  expect_valid_result(file);
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

struct cli_run {
  command_result r;
  nlohmann::json result;  // empty if no --json was written
};

// Runs `kjudge ARGS...`; for eval adds --json to a temp file and --db to the test store.
inline cli_run kjudge(std::vector<std::string> args, double timeout_s = 300,
                      const std::map<std::string, std::string>& env = {}) {
  static int counter = 0;
  cli_run out;
  std::vector<std::string> argv{KJUDGE_BIN};
  const auto json_path = test_dir() / ("result-" + std::to_string(++counter) + ".json");
  const bool is_eval = !args.empty() && args[0] == "eval";
  for (auto& a : args) argv.push_back(a);
  if (is_eval) {
    argv.push_back("--json");
    argv.push_back(json_path.string());
    argv.push_back("-q");
  }
  command_options o;
  o.timeout_seconds = timeout_s;
  o.extra_env["KJUDGE_DB"] = (test_dir() / "store.db").string();
  for (const auto& [k, v] : env) o.extra_env[k] = v;
  out.r = run_command(argv, o);
  if (is_eval && std::filesystem::exists(json_path)) out.result = read_result(json_path);
  return out;
}

inline std::string status_of(const cli_run& c) {
  if (!c.result.is_object()) return "<no result; exit " + std::to_string(c.r.exit_status) + ": " + c.r.output + ">";
  return c.result["verdict"]["status"].get<std::string>();
}

inline std::string rule_of(const cli_run& c) {
  if (!c.result.is_object() || !c.result["verdict"]["rule"].is_string()) return "";
  return c.result["verdict"]["rule"].get<std::string>();
}

// The first failing case entry, if any.
inline nlohmann::json failing_case(const cli_run& c) {
  if (c.result.is_object() && c.result["verdict"].contains("evidence") && c.result["verdict"]["evidence"].contains("case"))
    return c.result["verdict"]["evidence"]["case"];
  return nullptr;
}

}  // namespace kjudge::test
