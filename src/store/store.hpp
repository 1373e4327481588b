// The result store (DESIGN.md §2.4): an SQLite file (WAL mode, schema versioned through
// `PRAGMA user_version`) or a PostgreSQL database (KJUDGE_DB=postgresql://..., schema versioned in
// its `schema_version` table), both with the same tables and forward-only migrations
// (store/detail/). One row per evaluation holds the whole result document ("kjudge.result/1",
// docs/result-schema.md), the candidate's hash and source, and the environment; a few columns
// are copied out of the document so that history queries need no JSON parsing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace kjudge {

namespace detail {
class store_backend;
}

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

// One evaluation row with every column, as `kjudge store merge` copies it between stores.
struct stored_row {
  std::int64_t id = 0;  // in the store it was read from; ignored on insert
  std::optional<std::string> created_at;
  std::optional<std::string> problem;
  std::optional<std::string> dtype;
  std::optional<std::string> device;
  std::optional<std::string> candidate_path;
  std::optional<std::string> candidate_sha256;
  std::string candidate_source;
  std::optional<std::string> status;
  std::optional<std::string> rule;
  std::optional<double> speedup_median;
  std::optional<double> speedup_lo;
  std::optional<double> speedup_hi;
  std::string result_json;
  std::optional<std::string> env_json;
  std::string dedup_key;  // empty: none
};

// The tables of `kjudge loop` (migration 2): one row per run, iteration, proposal and family.
enum class loop_table { runs, iterations, proposals, families };

// One column's value in a loop table: NULL, an integer, a real or a text.
using loop_value = std::variant<std::monostate, std::int64_t, double, std::string>;

// A whole row of a loop table: every column of the table named once, in any order.
using loop_row = std::vector<std::pair<std::string, loop_value>>;

struct add_outcome {
  std::int64_t id = 0;
  bool inserted = false;  // false: an existing row matched and nothing was written
};

class store {
 public:
  // True if `where` names a PostgreSQL database (postgresql://... or postgres://...); anything
  // else is an SQLite file path.
  static bool is_postgres_url(const std::string& where);
  // `where` fit for messages: a URL with its password replaced by "***".
  static std::string display_name(const std::string& where);

  // The schema version this code writes; opening a file with a higher version is refused.
  static int latest_schema_version();

  // Opens or creates the database (for a file, its parent directories too) and migrates it to the
  // latest schema. `where` is KJUDGE_DB's value: a PostgreSQL URL or an SQLite file path.
  // Throws usage_error if the schema is newer than this kjudge knows or the database cannot be
  // opened or reached (the message names it, without a password), internal_error on any other
  // database failure. `busy_timeout_ms` applies to SQLite (PostgreSQL waits on its own locks).
  explicit store(const std::filesystem::path& where, int busy_timeout_ms = 5000);
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

  // The dedup keys that start with `prefix`, sorted bytewise; rows without a key are left out.
  std::vector<std::string> keys_with_prefix(const std::string& prefix) const;

  // Copies a row read from another store (for_each_row). A row with a dedup key is added unless
  // one holds the key; a row without one is added unless one has the same (candidate_sha256,
  // created_at, problem, dtype, device). Throws as add_evaluation.
  add_outcome add_row(const stored_row& row);

  // Calls `visit` with every evaluation row, in id order.
  void for_each_row(const std::function<void(const stored_row&)>& visit) const;

  // Evaluations of `problem`, newest first (created_at, then insertion order); at most `limit`
  // rows (limit <= 0: all).
  std::vector<history_row> history(const std::string& problem, int limit = 20) const;

  // The stored result document, or nullopt if no row has this id.
  std::optional<nlohmann::json> get(std::int64_t id) const;

  // The stored source text of the candidate of evaluation `id`.
  std::optional<std::string> get_source(std::int64_t id) const;

  // Writes one row of a loop table keyed by its primary key (the journal's ids): a row already
  // holding the key is updated in place, never duplicated, so replaying a journal rewrites the
  // same rows. A run's row keeps its created_at, problem, device and proposer and takes the new
  // config_json and workdir; the other tables take every column. Throws internal_error if `row`
  // does not name each of the table's columns exactly once, or on a database failure.
  void upsert_loop_row(loop_table table, const loop_row& row);

  // The lowest id of an evaluation of `candidate_sha256` (nullopt: stored without one) whose
  // document's "loop" field names `run_id` and `proposal_id`; nullopt if there is none.
  std::optional<std::int64_t> find_loop_evaluation(const std::optional<std::string>& candidate_sha256,
                                                   const std::string& run_id, const std::string& proposal_id) const;

  // Rows of a loop table that belong to run `run_id` (for loop_table::runs: 0 or 1).
  std::int64_t count_loop_rows(loop_table table, const std::string& run_id) const;

  // The schema version as read from the database now (SQLite: `PRAGMA user_version`).
  int schema_version() const;

  // The file path, or the URL as given (password included: print display_name(path()) instead).
  const std::filesystem::path& path() const { return m_path; }
  bool is_postgres() const { return is_postgres_url(m_path.string()); }

 private:
  std::unique_ptr<detail::store_backend> m_backend;
  std::filesystem::path m_path;
};

}  // namespace kjudge
