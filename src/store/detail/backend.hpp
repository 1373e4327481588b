// The store's storage engines behind kjudge::store: SQLite (a file) and PostgreSQL (a server).
// Both hold the same logical schema (store.hpp) and apply the same forward-only migrations; the
// facade derives the columns from the result document and leaves only the SQL to them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "store/detail/loop_tables.hpp"
#include "store/store.hpp"

namespace kjudge::detail {

class store_backend {
 public:
  virtual ~store_backend() = default;

  // The schema version recorded in the database now.
  virtual int schema_version() const = 0;

  // Inserts `row` in one transaction. With a dedup key, an existing row holding the key wins;
  // without one, `keyless_identity` makes an existing row with the same (candidate_sha256,
  // created_at, problem, dtype, device) win. Never writes a second row in either case.
  virtual add_outcome insert(const stored_row& row, bool keyless_identity) = 0;

  virtual std::vector<history_row> history(const std::string& problem, int limit) const = 0;
  virtual std::optional<std::string> result_json(std::int64_t id) const = 0;
  virtual std::optional<std::string> source(std::int64_t id) const = 0;
  virtual std::vector<std::string> keys_with_prefix(const std::string& prefix) const = 0;
  // Every evaluation row in id order.
  virtual void for_each_row(const std::function<void(const stored_row&)>& visit) const = 0;

  // The loop's tables (store.hpp documents the semantics). `values` are in the schema's column
  // order, already checked against it by the facade.
  virtual void upsert_loop_row(const loop_table_schema& schema, const std::vector<loop_value>& values) = 0;
  virtual std::optional<std::int64_t> find_loop_evaluation(const std::optional<std::string>& candidate_sha256,
                                                           const std::string& run_id,
                                                           const std::string& proposal_id) const = 0;
  virtual std::int64_t count_loop_rows(const loop_table_schema& schema, const std::string& run_id) const = 0;
};

// Opens or creates the SQLite file and migrates it (store.hpp's constructor documents the errors).
std::unique_ptr<store_backend> open_sqlite_backend(const std::filesystem::path& file, int busy_timeout_ms);

// Connects to the PostgreSQL server named by `url` and migrates its schema under an advisory lock.
std::unique_ptr<store_backend> open_postgres_backend(const std::string& url);

// The migrations' count: the schema version both engines reach.
int latest_schema_version();

}  // namespace kjudge::detail
