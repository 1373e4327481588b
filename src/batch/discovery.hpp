// Which candidates a run directory holds and which problem each is judged against (kjudge batch,
// docs/batch.md). Three layouts:
//   kjudge       RUN_DIR/<problem>/<candidate>.cpp|.cu|.py, <problem> a suite name or a problem
//                directory's name under the problems root (nested: kb/level1/19_ReLU);
//   kernelbench  RUN_DIR/level_<L>_problem_<P>_sample_<S>_kernel.py (KernelBench's generated
//                kernels, a ModelNew each), matched to the problem `kjudge import kernelbench`
//                named <P>_<name> under kb/level<L> (or level<L>) of the problems root;
//   gpumode      RUN_DIR/<name>/submission.py, matched to gpumode/<name> (kjudge import gpumode).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kjudge::batch {

struct candidate_entry {
  std::string problem;      // the problem's name as keyed and shown ("softmax", "kb/level1/19_ReLU")
  std::string problem_arg;  // what evaluate() takes: a suite name or a problem directory's path
  std::string rel_path;     // the candidate's path relative to RUN_DIR
  std::filesystem::path path;
  // KernelBench layout: its level, problem id and sample id (eval_results.json is keyed by them).
  std::optional<int> kb_level, kb_problem, kb_sample;

  // "<problem>/<rel_path>": unique within a run directory; the candidate key without the batch id.
  [[nodiscard]] std::string id() const { return problem + "/" + rel_path; }
};

struct discovery {
  std::string layout;                       // kjudge | kernelbench | gpumode
  std::vector<candidate_entry> candidates;  // sorted by id(): the order shards are cut from
  std::vector<std::string> unmatched;       // one line per file found but not judged, with why
};

// The layout a run directory has: kernelbench when it holds a level_*_problem_*_sample_*_kernel.py,
// gpumode when a subdirectory holds a submission.py, kjudge otherwise.
std::string detect_layout(const std::filesystem::path& run_dir);

// Every candidate of `run_dir` in `layout` ("auto": detect_layout). `problems_root` holds the
// imported problems (kjudge import; imported_problems_root() by default); suite problems are
// found by name. Directories whose names start with '.' (the batch's own state) are skipped.
// Throws usage_error for a run directory that does not exist or an unknown layout.
discovery discover(const std::filesystem::path& run_dir, const std::string& layout,
                   const std::filesystem::path& problems_root);

// --shard I/N: {I, N}; throws usage_error unless 0 <= I < N.
std::pair<unsigned, unsigned> parse_shard(const std::string& text);

// The candidates whose index in the sorted list is I modulo N.
std::vector<candidate_entry> pick_shard(const std::vector<candidate_entry>& all, unsigned index, unsigned count);

}  // namespace kjudge::batch
