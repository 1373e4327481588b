#include "batch/discovery.hpp"

#include <algorithm>
#include <regex>
#include <sstream>

#include "core/error.hpp"
#include "problem/registry.hpp"

namespace kjudge::batch {

namespace {

namespace fs = std::filesystem;

const std::regex& kernelbench_name() {
  static const std::regex re(R"(level_(\d+)_problem_(\d+)_sample_(\d+)_kernel\.py)");
  return re;
}

bool is_problem_dir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "problem.toml", ec);
}

bool hidden(const fs::path& rel) {
  return std::any_of(rel.begin(), rel.end(), [](const fs::path& part) {
    const std::string s = part.string();
    return s.size() > 1 && s[0] == '.' && s != "..";
  });
}

// Regular files under `root` (recursively unless `top_only`), relative to it, sorted; hidden
// directories (the batch state) are not entered.
std::vector<fs::path> files_under(const fs::path& root, bool top_only) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::path rel = fs::relative(it->path(), root, ec);
    if (it->is_directory(ec) && (hidden(rel) || top_only)) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && !hidden(rel)) out.push_back(rel);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void discover_kjudge(const fs::path& run_dir, const fs::path& problems_root, discovery& d) {
  const auto suite = problem_names();
  for (const auto& rel : files_under(run_dir, false)) {
    const std::string ext = rel.extension().string();
    if (ext != ".cpp" && ext != ".cu" && ext != ".py") continue;
    const std::string problem = rel.parent_path().generic_string();
    if (problem.empty()) {
      d.unmatched.push_back(rel.string() + ": not in a problem's directory (RUN_DIR/<problem>/<candidate>)");
      continue;
    }
    candidate_entry c{problem, "", rel.generic_string(), run_dir / rel, {}, {}, {}};
    if (std::find(suite.begin(), suite.end(), problem) != suite.end())
      c.problem_arg = problem;
    else if (is_problem_dir(problems_root / problem))
      c.problem_arg = fs::absolute(problems_root / problem).string();
    if (c.problem_arg.empty()) {
      d.unmatched.push_back(rel.string() + ": no problem named " + problem + " (not in the suite, and no " +
                            (problems_root / problem / "problem.toml").string() + ")");
      continue;
    }
    d.candidates.push_back(std::move(c));
  }
}

// The directory of KernelBench problem `id` of `level` under the problems root: the one whose
// name is "<id>_..." (`kjudge import kernelbench` names problems after their files).
std::optional<fs::path> kernelbench_problem(const fs::path& problems_root, int level, int id, std::string& why) {
  const std::string lv = "level" + std::to_string(level);
  fs::path level_dir;
  for (const fs::path& cand : {problems_root / "kb" / lv, problems_root / lv}) {
    std::error_code ec;
    if (fs::is_directory(cand, ec)) {
      level_dir = cand;
      break;
    }
  }
  if (level_dir.empty()) {
    why = "no imported KernelBench level " + std::to_string(level) + " (neither " +
          (problems_root / "kb" / lv).string() + " nor " + (problems_root / lv).string() +
          "; kjudge import kernelbench KernelBench/" + lv + ")";
    return std::nullopt;
  }
  const std::string prefix = std::to_string(id) + "_";
  std::error_code ec;
  std::vector<fs::path> hits;
  for (const auto& e : fs::directory_iterator(level_dir, ec))
    if (e.path().filename().string().rfind(prefix, 0) == 0 && is_problem_dir(e.path())) hits.push_back(e.path());
  if (hits.size() == 1) return hits.front();
  why = hits.empty() ? "no problem " + prefix + "* in " + level_dir.string()
                     : std::to_string(hits.size()) + " problems " + prefix + "* in " + level_dir.string();
  return std::nullopt;
}

void discover_kernelbench(const fs::path& run_dir, const fs::path& problems_root, discovery& d) {
  for (const auto& rel : files_under(run_dir, true)) {
    if (rel.extension() != ".py") continue;
    std::smatch m;
    const std::string name = rel.filename().string();
    if (!std::regex_match(name, m, kernelbench_name())) {
      d.unmatched.push_back(name + ": not named level_<L>_problem_<P>_sample_<S>_kernel.py");
      continue;
    }
    const int level = std::stoi(m[1]), id = std::stoi(m[2]), sample = std::stoi(m[3]);
    std::string why;
    const auto dir = kernelbench_problem(problems_root, level, id, why);
    if (!dir) {
      d.unmatched.push_back(name + ": " + why);
      continue;
    }
    std::error_code ec;
    fs::path shown = fs::relative(*dir, problems_root, ec);
    d.candidates.push_back({shown.empty() ? dir->string() : shown.generic_string(), fs::absolute(*dir).string(),
                            rel.generic_string(), run_dir / rel, level, id, sample});
  }
}

void discover_gpumode(const fs::path& run_dir, const fs::path& problems_root, discovery& d) {
  for (const auto& rel : files_under(run_dir, false)) {
    if (rel.filename() != "submission.py") continue;
    const std::string name = rel.parent_path().generic_string();
    const fs::path dir = problems_root / "gpumode" / name;
    if (name.empty() || !is_problem_dir(dir)) {
      d.unmatched.push_back(rel.string() + ": no imported GPU MODE problem " + dir.string() +
                            " (kjudge import gpumode DIR)");
      continue;
    }
    d.candidates.push_back(
        {"gpumode/" + name, fs::absolute(dir).string(), rel.generic_string(), run_dir / rel, {}, {}, {}});
  }
}

}  // namespace

std::string detect_layout(const fs::path& run_dir) {
  const auto files = files_under(run_dir, false);
  for (const auto& rel : files)
    if (!rel.has_parent_path() && std::regex_match(rel.filename().string(), kernelbench_name())) return "kernelbench";
  for (const auto& rel : files)
    if (rel.filename() == "submission.py" && rel.has_parent_path()) return "gpumode";
  return "kjudge";
}

discovery discover(const fs::path& run_dir, const std::string& layout, const fs::path& problems_root) {
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec)) throw usage_error(run_dir.string() + ": no such directory");
  discovery d;
  d.layout = layout == "auto" ? detect_layout(run_dir) : layout;
  if (d.layout == "kjudge")
    discover_kjudge(run_dir, problems_root, d);
  else if (d.layout == "kernelbench")
    discover_kernelbench(run_dir, problems_root, d);
  else if (d.layout == "gpumode")
    discover_gpumode(run_dir, problems_root, d);
  else
    throw usage_error("--layout " + layout + ": expected auto, kjudge, kernelbench or gpumode");
  std::sort(d.candidates.begin(), d.candidates.end(),
            [](const candidate_entry& a, const candidate_entry& b) { return a.id() < b.id(); });
  return d;
}

std::pair<unsigned, unsigned> parse_shard(const std::string& text) {
  unsigned i = 0, n = 0;
  char slash = 0;
  std::istringstream in(text);
  if (!(in >> i >> slash >> n) || slash != '/' || n == 0 || i >= n || !in.eof() || text.find('-') != std::string::npos)
    throw usage_error("--shard " + text + ": expected I/N with 0 <= I < N, e.g. 0/4");
  return {i, n};
}

std::vector<candidate_entry> pick_shard(const std::vector<candidate_entry>& all, unsigned index, unsigned count) {
  std::vector<candidate_entry> out;
  for (std::size_t k = index; k < all.size(); k += count) out.push_back(all[k]);
  return out;
}

}  // namespace kjudge::batch
