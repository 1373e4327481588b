// The proposer protocol's per-iteration context (schema "kjudge.proposer.context/1",
// docs/proposer.md): a JSON document and a Markdown brief rendered from it alone.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "loop/beam.hpp"
#include "loop/state.hpp"
#include "problem/spec.hpp"

namespace kjudge::loop {

inline constexpr const char* k_context_schema = "kjudge.proposer.context/1";
inline constexpr int k_protocol_version = 1;

struct context_paths {
  std::filesystem::path workdir;
  std::filesystem::path context;
  std::filesystem::path brief;
  std::filesystem::path out_dir;
};

// The problem as a proposer needs it: signature, dtypes, tolerances, cost model, public and
// bench cases, and the hidden-case generator's declared ranges (never its seed).
nlohmann::json problem_json(const problem_spec& p, const std::string& device, const std::string& dtype);

nlohmann::json build_context(const loop_state& st, const problem_spec& p, int iteration, const request& req,
                             const context_paths& paths);

std::string render_brief(const nlohmann::json& context);

}  // namespace kjudge::loop
