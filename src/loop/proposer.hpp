// Proposers (docs/proposer.md): where candidates come from. A command run per iteration with
// KJUDGE_CONTEXT / KJUDGE_BRIEF / KJUDGE_OUTPUT_DIR, the built-in `autotune:TEMPLATE[,...]`
// (successive halving over a template's kj-param space), and `dir:PATH` (files dropped into a
// directory by a person or an agent in another terminal, each consumed once).
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "loop/halving.hpp"
#include "loop/state.hpp"

namespace kjudge::loop {

struct produced_file {
  std::filesystem::path path;            // where the proposer left it (inside the output dir)
  nlohmann::json meta;                   // recorded with the proposal
  std::optional<judge_profile> profile;  // autotune rungs; else the loop's full profile
};

struct proposer_input {
  int iteration = 0;
  std::filesystem::path workdir;
  std::filesystem::path context;  // context.json
  std::filesystem::path brief;    // brief.md
  std::filesystem::path out_dir;  // empty directory the proposer writes into
  std::filesystem::path log;      // where the proposer's output is kept
  const loop_state* state = nullptr;
  judge_profile full_profile;
};

struct proposer_result {
  std::string status = "ok";  // "ok", "crash" (non-zero exit or signal), "timeout", "error" (could not run)
  int exit_status = 0;
  int signal = 0;
  double seconds = 0.0;
  std::string message;  // one line for the journal: why it failed, what it did
  std::vector<produced_file> files;
};

class proposer {
 public:
  virtual ~proposer() = default;
  virtual proposer_result propose(const proposer_input& in) = 0;
  // Called once the proposals are in the journal: the dir proposer removes the consumed files.
  virtual void recorded(const std::vector<produced_file>& /*files*/, const loop_state& /*state*/) {}
  // True when the proposer has nothing left to propose (autotune after its last rung).
  virtual bool finished(const loop_state& /*state*/) const { return false; }
};

// Judge profile of an autotune rung: the full budget times eta^-(rungs left), as successive
// halving prescribes, but never below 0.2 s and 3 rounds; the final rung gets the full profile.
judge_profile rung_profile(const rung_plan& plan, const judge_profile& full);

// `spec` is the resolved proposer of a run's config ("autotune:/abs/t.cpp,...", "dir:/abs/path" or
// a shell command). Throws usage_error for a bad template or directory.
std::unique_ptr<proposer> make_proposer(const std::string& spec, const nlohmann::json& config);

// The spec as stored in the run's config: templates copied into WORKDIR/templates (so a later
// edit of the original cannot change a resumed search) and paths made absolute. Throws
// usage_error naming the template file and line for a malformed template.
std::string resolve_proposer_spec(const std::string& spec, const std::filesystem::path& workdir,
                                  const std::filesystem::path& cwd);

// Checks the spec without touching the disk beyond reading templates (before a workdir exists).
void check_proposer_spec(const std::string& spec);

}  // namespace kjudge::loop
