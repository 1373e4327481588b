// The problem registry (DESIGN.md §1): the built-in suite under problems/<name>/problem.toml and
// problems given by path.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "problem/spec.hpp"

namespace kjudge {

// $KJUDGE_PROBLEMS when set and non-empty, else the source tree's problems/ directory.
std::filesystem::path problems_root();

// Names of the problems under problems_root() (directories holding a problem.toml), sorted.
// Does not parse them.
std::vector<std::string> problem_names();

// `name_or_path` is a suite name ("softmax"), a path to a problem directory, or a path to a
// problem.toml. A name is looked up in the suite first; anything containing '/' or ending in
// ".toml" is a path. Throws usage_error for an unknown name (listing the known ones), a missing
// path, or a malformed spec (spec.hpp). A suite problem's `name` must equal its directory name.
problem_spec load_problem(const std::string& name_or_path);

// Every problem of the suite, parsed, sorted by name. A malformed one throws usage_error.
std::vector<problem_spec> load_all_problems();

}  // namespace kjudge
