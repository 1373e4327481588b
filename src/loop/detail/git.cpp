#include "loop/detail/git.hpp"

#include <map>
#include <vector>

#include "core/subprocess.hpp"
#include "loop/journal.hpp"

namespace kjudge::loop::detail {

namespace fs = std::filesystem;

namespace {

// A fixed identity: the user's git config may be absent (CI) and must not decide authorship.
command_options git_options() {
  command_options o;
  o.timeout_seconds = 60;
  o.extra_env = {{"GIT_AUTHOR_NAME", "kjudge loop"},    {"GIT_AUTHOR_EMAIL", "kjudge@localhost"},
                 {"GIT_COMMITTER_NAME", "kjudge loop"}, {"GIT_COMMITTER_EMAIL", "kjudge@localhost"},
                 {"GIT_TERMINAL_PROMPT", "0"},          {"GIT_CONFIG_NOSYSTEM", "1"}};
  return o;
}

command_result git(const fs::path& repo, std::vector<std::string> args) {
  std::vector<std::string> argv{"git", "-C", repo.string()};
  for (auto& a : args) argv.push_back(std::move(a));
  return run_command(argv, git_options());
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

git_outcome commit_files(const fs::path& repo, const std::vector<std::pair<std::string, std::string>>& files,
                         const std::string& message, const std::string& proposal_id) {
  git_outcome out;
  try {
    std::error_code ec;
    fs::create_directories(repo, ec);
    if (!fs::exists(repo / ".git")) {
      const auto r = git(repo, {"init", "-q"});
      if (r.exit_status != 0) {
        out.message = "git init failed: " + r.output;
        return out;
      }
    }
    // An earlier commit of this proposal (kill -9 after the commit, before the journal line).
    const auto log = git(repo, {"log", "--format=%H", "--grep=^kjudge-proposal: " + proposal_id + "$"});
    if (log.exit_status == 0 && !trim(log.output).empty()) {
      const std::string first = trim(log.output).substr(0, trim(log.output).find('\n'));
      out.ok = true;
      out.commit = first;
      return out;
    }
    for (const auto& [name, content] : files) write_file_atomic(repo / name, content);
    auto r = git(repo, {"add", "-A"});
    if (r.exit_status != 0) {
      out.message = "git add failed: " + r.output;
      return out;
    }
    // The user's signing setup must not block (or prompt in) an unattended loop.
    r = git(repo, {"-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "-m", message});
    if (r.exit_status != 0) {
      out.message = "git commit failed: " + r.output;
      return out;
    }
    r = git(repo, {"rev-parse", "HEAD"});
    if (r.exit_status != 0) {
      out.message = "git rev-parse failed: " + r.output;
      return out;
    }
    out.ok = true;
    out.commit = trim(r.output);
  } catch (const std::exception& e) {
    out.message = e.what();
  }
  return out;
}

}  // namespace kjudge::loop::detail
