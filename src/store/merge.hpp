// `kjudge store merge OUT SRC...`: folds stores (per-task SQLite files of a batch run where no
// PostgreSQL server was reachable) into one. A row keeps its dedup key, so merging the same
// source twice adds nothing; a row without a key counts as already present when OUT holds a row
// with the same (candidate_sha256, created_at, problem, dtype, device): one judge cannot produce
// two results for one candidate, problem, dtype and device within the same second.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kjudge {

struct merge_counts {
  std::int64_t read = 0;
  std::int64_t added = 0;
  std::int64_t present = 0;  // already in OUT (by key, or by the keyless identity above)
};

// Merges every evaluation row of each store in `sources` into the store `out` (a file path or a
// PostgreSQL URL, created and migrated as kjudge::store does). A source that is a file must
// exist: a typo never creates an empty store to merge. `on_source` is called after each source
// with its counts. Throws usage_error for a missing source or a row without problem or status.
merge_counts merge_stores(const std::string& out, const std::vector<std::string>& sources,
                          const std::function<void(const std::string&, const merge_counts&)>& on_source = {});

}  // namespace kjudge
