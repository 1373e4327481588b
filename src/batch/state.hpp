// A batch's state directory (default RUN_DIR/.kjudge-batch, docs/batch.md):
//   batch.json             the batch id, the run directory, its layout, the candidate list and the
//                          options; made once by whichever process comes first (all shards share it)
//   results/<key>.json     one per judged candidate, written atomically (temporary file + rename):
//                          present means judged, so a batch killed at any moment resumes by
//                          judging exactly the candidates without one.
// A candidate's key is "<batch id>/<problem>/<candidate path relative to RUN_DIR>"; it is also the
// store's dedup key.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "batch/discovery.hpp"

namespace kjudge::batch {

struct batch_state {
  std::filesystem::path dir;
  std::string batch_id;
};

// Opens the state directory, making it and batch.json if absent (a fresh batch id; a process
// racing to make it adopts the first one written). An existing batch.json keeps its id and is
// rewritten with the current candidate list and options when they changed. Throws usage_error
// for a batch.json that cannot be read.
batch_state open_state(const std::filesystem::path& dir, const std::filesystem::path& run_dir,
                       const std::string& layout, const std::vector<candidate_entry>& all,
                       const nlohmann::json& options);

std::string candidate_key(const batch_state& s, const candidate_entry& c);

std::filesystem::path result_path(const batch_state& s, const std::string& key);

bool has_result(const batch_state& s, const std::string& key);

// Every result file present (all shards'), sorted by key; unreadable ones are skipped with a note
// on stderr.
std::vector<nlohmann::json> read_results(const batch_state& s);

}  // namespace kjudge::batch
