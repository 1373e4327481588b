// Where kjudge keeps things on this machine: the result store, the build cache, imported
// problems. Each follows an environment variable first (tests and CI point them elsewhere).
#pragma once

#include <filesystem>

namespace kjudge {

// $KJUDGE_DB if set and non-empty, else $XDG_DATA_HOME/kjudge/kjudge.db (absolute XDG paths
// only, as the XDG spec requires), else ~/.local/share/kjudge/kjudge.db. Throws usage_error if
// no home directory can be found.
std::filesystem::path default_db_path();

// $KJUDGE_CACHE (a relative one made absolute against the working directory), else
// $XDG_CACHE_HOME/kjudge, else ~/.cache/kjudge, else a directory in the temporary directory: built
// libraries, ceilings, scratch directories.
std::filesystem::path cache_root();

// The imported problems' root: $KJUDGE_IMPORTED (made absolute as $KJUDGE_CACHE is), else
// "problems" beside the store's database.
std::filesystem::path imported_problems_root();

}  // namespace kjudge
