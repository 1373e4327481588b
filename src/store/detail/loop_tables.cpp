#include "store/detail/loop_tables.hpp"

#include <utility>

#include "core/error.hpp"

namespace kjudge::detail {
namespace {

// A table whose upsert rewrites every column but the key.
loop_table_schema with_rest_updated(const char* name, std::vector<std::string> columns, std::size_t key_size) {
  std::vector<std::string> updated(columns.begin() + static_cast<std::ptrdiff_t>(key_size), columns.end());
  return {name, std::move(columns), key_size, std::move(updated)};
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace

const loop_table_schema& schema_of(loop_table table) {
  // A run's identity (when, what, where, who proposed) is fixed by its first row; a resume may
  // move the workdir and change the budget in config_json, so only those two are rewritten.
  static const loop_table_schema runs{"loop_runs",
                                      {"id", "created_at", "problem", "device", "proposer", "workdir", "config_json"},
                                      1,
                                      {"config_json", "workdir"}};
  static const loop_table_schema iterations = with_rest_updated(
      "loop_iterations",
      {"run_id", "iteration", "request_json", "proposer_status", "proposer_seconds", "n_proposals", "best_proposal",
       "best_speedup", "best_lo", "best_hi", "best_time_s", "improved", "beam_json", "elapsed_s"},
      2);
  static const loop_table_schema proposals =
      with_rest_updated("loop_proposals",
                        {"run_id", "proposal_id", "iteration", "file", "sha256", "family", "state", "status", "rule",
                         "speedup_median", "speedup_lo", "speedup_hi", "time_s", "evaluation_id", "meta_json"},
                        2);
  static const loop_table_schema families =
      with_rest_updated("loop_families",
                        {"run_id", "family", "attempts", "correct", "rejected", "best_proposal", "best_speedup",
                         "in_beam", "retired", "retired_reason", "retired_at"},
                        2);
  switch (table) {
    case loop_table::runs:
      return runs;
    case loop_table::iterations:
      return iterations;
    case loop_table::proposals:
      return proposals;
    case loop_table::families:
      return families;
  }
  throw internal_error("unknown loop table " + std::to_string(static_cast<int>(table)));
}

std::string loop_upsert_sql(const loop_table_schema& schema, char placeholder) {
  std::vector<std::string> values, key, set;
  for (std::size_t i = 0; i < schema.columns.size(); ++i) {
    values.push_back(placeholder + std::to_string(i + 1));
    if (i < schema.key_size) key.push_back(schema.columns[i]);
  }
  for (const auto& c : schema.updated) set.push_back(c + " = excluded." + c);
  return std::string("INSERT INTO ") + schema.name + " (" + joined(schema.columns) + ") VALUES (" + joined(values) +
         ") ON CONFLICT (" + joined(key) + ") DO UPDATE SET " + joined(set);
}

std::string loop_count_sql(const loop_table_schema& schema, char placeholder) {
  return std::string("SELECT COUNT(*) FROM ") + schema.name + " WHERE " + schema.columns.front() + " = " + placeholder +
         "1";
}

}  // namespace kjudge::detail
