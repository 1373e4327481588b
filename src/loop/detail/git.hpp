// The loop's trajectory repository (WORKDIR/git): one commit per accepted improvement, written
// through the git command line so `git log` reads the trajectory.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace kjudge::loop::detail {

struct git_outcome {
  bool ok = false;
  std::string commit;   // full hash
  std::string message;  // why it failed
};

// Commits `files` (name -> content, written at the top of the repository) with `message`, which
// must end with the trailer line "kjudge-proposal: ID". If a commit with that trailer exists
// already (a run killed between committing and journaling), returns it without committing again.
// Creates the repository on first use. Never throws for git's failures: they are returned.
git_outcome commit_files(const std::filesystem::path& repo,
                         const std::vector<std::pair<std::string, std::string>>& files, const std::string& message,
                         const std::string& proposal_id);

}  // namespace kjudge::loop::detail
