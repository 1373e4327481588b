// The result store (DESIGN.md §2.4): one SQLite file, WAL mode, schema versioned through
// `PRAGMA user_version` with forward-only migrations. One row per evaluation holds the whole
// result document ("kjudge.result/1", docs/result-schema.md), the candidate's hash and source,
// and the environment; a few columns are copied out of the document so that history queries
// need no JSON parsing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace kjudge {

// One line of `kjudge history PROBLEM`.
struct history_row {
  std::int64_t id = 0;
  std::string created_at;  // ISO 8601 UTC, as in the result document
  std::string candidate_path;
  std::string sha256_prefix;  // first 12 hex digits; empty if unknown
  std::string dtype;
  std::string device;
  std::string status;  // verdict.status
  std::string rule;    // verdict.rule; empty if none
  std::optional<double> speedup_median;
  std::optional<double> speedup_lo;
  std::optional<double> speedup_hi;
  std::string spec_sha256_prefix;  // the problem.toml judged against (first 12 hex digits); empty if not recorded
};

class store {
 public:
  // The schema version this code writes; opening a file with a higher version is refused.
  static int latest_schema_version();

  // Opens or creates the database (and its parent directories) and migrates it to the latest
  // schema. Throws usage_error if the file's schema is newer than this kjudge knows or the file
  // cannot be opened, internal_error on any other SQLite failure.
  explicit store(const std::filesystem::path& file, int busy_timeout_ms = 5000);
  ~store();
  store(const store&) = delete;
  store& operator=(const store&) = delete;
  store(store&& other) noexcept;
  store& operator=(store&& other) noexcept;

  // Stores one result document and the candidate's source text in a single transaction and
  // returns the new row id. Throws usage_error if the document lacks problem.name or
  // verdict.status (it could never be found by `history`), internal_error on SQLite failure;
  // either way nothing is written.
  // A non-empty `dedup_key` is unique in the store: if a row already holds it, nothing is written
  // and that row's id is returned (the document is not compared), so a writer that may repeat an
  // insert after a crash stores each result once. Concurrent writers of one key are safe.
  std::int64_t add_evaluation(const nlohmann::json& result, const std::string& source,
                              const std::string& dedup_key = "");

  // The dedup keys that start with `prefix`, sorted; rows without a key are left out.
  std::vector<std::string> keys_with_prefix(const std::string& prefix) const;

  // Evaluations of `problem`, newest first (created_at, then insertion order); at most `limit`
  // rows (limit <= 0: all).
  std::vector<history_row> history(const std::string& problem, int limit = 20) const;

  // The stored result document, or nullopt if no row has this id.
  std::optional<nlohmann::json> get(std::int64_t id) const;

  // The stored source text of the candidate of evaluation `id`.
  std::optional<std::string> get_source(std::int64_t id) const;

  // `PRAGMA user_version` as read from the file now.
  int schema_version() const;

  const std::filesystem::path& path() const { return m_path; }

 private:
  void migrate();

  sqlite3* m_db = nullptr;
  std::filesystem::path m_path;
};

}  // namespace kjudge
