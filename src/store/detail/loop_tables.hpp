// The columns of the loop's tables (migration 2 of both engines) and the SQL both engines run on
// them. The statements are the same text in SQLite and PostgreSQL but for the placeholders
// (?1 and $1): "INSERT ... ON CONFLICT (key) DO UPDATE SET c = excluded.c" is an upsert in both.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "store/store.hpp"

namespace kjudge::detail {

struct loop_table_schema {
  const char* name;
  std::vector<std::string> columns;  // in the order of the migration; the key comes first
  std::size_t key_size;              // the first key_size columns are the primary key
  std::vector<std::string> updated;  // the columns an upsert rewrites when the key exists
};

const loop_table_schema& schema_of(loop_table table);

// `placeholder` is '?' (SQLite) or '$' (PostgreSQL); parameter i is column i of the schema.
std::string loop_upsert_sql(const loop_table_schema& schema, char placeholder);

// Counts the rows whose first key column (the run's id) is the parameter 1.
std::string loop_count_sql(const loop_table_schema& schema, char placeholder);

}  // namespace kjudge::detail
