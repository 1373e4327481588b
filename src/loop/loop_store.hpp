// The loop's rows in the store (migration 2 of either engine, store/detail/): runs, iterations,
// proposals, families. Every write is an upsert keyed by the journal's ids, so replaying a
// journal after kill -9 rewrites the same rows and never adds a second one.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "store/store.hpp"

namespace kjudge::loop {

class loop_store {
 public:
  // Opens (creating and migrating) the store: an SQLite file or a PostgreSQL URL. Throws as
  // kjudge::store does.
  explicit loop_store(const std::filesystem::path& db);

  // `config` is the run's loop.json document (id, problem, device, proposer, workdir, ...); its
  // "db" is stored without a password.
  void upsert_run(const nlohmann::json& config);
  // `row`: iteration, request, proposer_status, proposer_seconds, n_proposals, best (scored
  // candidate JSON or null), improved, beam, elapsed_s.
  void upsert_iteration(const std::string& run_id, const nlohmann::json& row);
  // `row`: id, iteration, file, sha256, family, state, status, rule, median, lo, hi, time_s, meta;
  // evaluation_id when the result document is in `evaluations`.
  void upsert_proposal(const std::string& run_id, const nlohmann::json& row, std::optional<std::int64_t> evaluation_id);
  // `row`: name, attempts, correct, rejected, best (or null), in_beam, retired, retired_reason, retired_at.
  void upsert_family(const std::string& run_id, const nlohmann::json& row);

  // The id of the evaluation row holding this run's result for `proposal_id` (the document's
  // "loop" field names them), storing the document with `source` if there is none yet.
  std::int64_t ensure_evaluation(const nlohmann::json& result, const std::string& source, const std::string& run_id,
                                 const std::string& proposal_id);

  // Rows of a table for this run (tests and reports): "loop_proposals", "loop_iterations", ...
  std::int64_t count_rows(const std::string& table, const std::string& run_id) const;

  const std::filesystem::path& path() const { return m_store.path(); }

 private:
  kjudge::store m_store;
};

}  // namespace kjudge::loop
