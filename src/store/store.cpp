#include "store/store.hpp"

#include <algorithm>
#include <system_error>
#include <utility>

#include "core/error.hpp"
#include "core/json_path.hpp"
#include "core/utc.hpp"
#include "store/detail/backend.hpp"

namespace kjudge {
namespace {

std::optional<double> ci_bound(const nlohmann::json& result, std::size_t i) {
  const auto* ci = json_at(result, {"speedup", "ci95"});
  if (ci == nullptr || !ci->is_array() || ci->size() != 2 || !(*ci)[i].is_number()) return std::nullopt;
  return (*ci)[i].get<double>();
}

// Invalid UTF-8 (a candidate path on Linux may hold any bytes) must not make storing fail.
std::string dump_json(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The columns of the row for `result`. Throws usage_error for a document `history` could never
// find or show: a row like that is worse than none.
stored_row row_from_document(const nlohmann::json& result, const std::string& source, const std::string& key) {
  const auto schema = string_at(result, {"schema"});
  if (!schema || schema->rfind("kjudge.result/", 0) != 0)
    throw usage_error("result document has no \"schema\": \"kjudge.result/N\"; not stored");
  stored_row r;
  r.problem = string_at(result, {"problem", "name"});
  if (!r.problem || r.problem->empty()) throw usage_error("result document has no problem.name; not stored");
  r.status = string_at(result, {"verdict", "status"});
  if (!r.status || r.status->empty()) throw usage_error("result document has no verdict.status; not stored");
  r.created_at = string_at(result, {"created_at"});
  if (!r.created_at) r.created_at = utc_now();
  r.device = string_at(result, {"device"});
  if (!r.device) r.device = string_at(result, {"problem", "device"});
  if (const auto* env = json_at(result, {"env"})) r.env_json = dump_json(*env);
  r.dtype = string_at(result, {"problem", "dtype"});
  r.candidate_path = string_at(result, {"candidate", "path"});
  r.candidate_sha256 = string_at(result, {"candidate", "sha256"});
  r.candidate_source = source;
  r.rule = string_at(result, {"verdict", "rule"});
  r.speedup_median = number_at(result, {"speedup", "median"});
  r.speedup_lo = ci_bound(result, 0);
  r.speedup_hi = ci_bound(result, 1);
  r.result_json = dump_json(result);
  r.dedup_key = key;
  return r;
}

}  // namespace

bool store::is_postgres_url(const std::string& where) {
  return where.rfind("postgresql://", 0) == 0 || where.rfind("postgres://", 0) == 0;
}

std::string store::display_name(const std::string& where) {
  if (!is_postgres_url(where)) return where;
  std::string out = where;
  // scheme://user:PASSWORD@host...: the userinfo ends at the first '@' before the path.
  const std::size_t start = out.find("://") + 3;
  const std::size_t at = out.find('@', start);
  const std::size_t slash = out.find('/', start);
  if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
    const std::size_t colon = out.find(':', start);
    if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
  }
  // ...?password=PASSWORD&...
  for (std::size_t p = out.find("password=", start); p != std::string::npos; p = out.find("password=", p + 1)) {
    if (p > 0 && out[p - 1] != '?' && out[p - 1] != '&') continue;
    const std::size_t v = p + 9;
    const std::size_t end = out.find('&', v);
    out.replace(v, (end == std::string::npos ? out.size() : end) - v, "***");
  }
  return out;
}

int store::latest_schema_version() {
  return detail::latest_schema_version();
}

store::store(const std::filesystem::path& where, int busy_timeout_ms) : m_path(where) {
  if (is_postgres_url(where.string()))
    m_backend = detail::open_postgres_backend(where.string());
  else
    m_backend = detail::open_sqlite_backend(where, busy_timeout_ms);
}

store::~store() = default;
store::store(store&& other) noexcept = default;
store& store::operator=(store&& other) noexcept = default;

int store::schema_version() const {
  return m_backend->schema_version();
}

std::int64_t store::add_evaluation(const nlohmann::json& result, const std::string& source,
                                   const std::string& dedup_key) {
  return m_backend->insert(row_from_document(result, source, dedup_key), false).id;
}

add_outcome store::add_row(const stored_row& row) {
  if (!row.problem || row.problem->empty() || !row.status || row.status->empty())
    throw usage_error("evaluation row " + std::to_string(row.id) + " has no problem or status; not copied");
  return m_backend->insert(row, true);
}

void store::for_each_row(const std::function<void(const stored_row&)>& visit) const {
  m_backend->for_each_row(visit);
}

std::vector<std::string> store::keys_with_prefix(const std::string& prefix) const {
  return m_backend->keys_with_prefix(prefix);
}

std::vector<history_row> store::history(const std::string& problem, int limit) const {
  return m_backend->history(problem, limit);
}

std::optional<nlohmann::json> store::get(std::int64_t id) const {
  const auto text = m_backend->result_json(id);
  if (!text) return std::nullopt;
  try {
    return nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& e) {
    throw internal_error(display_name(m_path.string()) + ": evaluation " + std::to_string(id) +
                         " holds an unreadable result document: " + e.what());
  }
}

std::optional<std::string> store::get_source(std::int64_t id) const {
  return m_backend->source(id);
}

void store::upsert_loop_row(loop_table table, const loop_row& row) {
  const auto& schema = detail::schema_of(table);
  std::vector<std::optional<loop_value>> ordered(schema.columns.size());
  for (const auto& [name, value] : row) {
    const auto it = std::find(schema.columns.begin(), schema.columns.end(), name);
    if (it == schema.columns.end()) throw internal_error(std::string(schema.name) + " has no column " + name);
    auto& slot = ordered[static_cast<std::size_t>(it - schema.columns.begin())];
    if (slot) throw internal_error(std::string(schema.name) + ": column " + name + " given twice");
    slot = value;
  }
  std::vector<loop_value> values;
  values.reserve(ordered.size());
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    // A column left out would be NULL in a new row but keep its value in a rewritten one.
    if (!ordered[i]) throw internal_error(std::string(schema.name) + ": column " + schema.columns[i] + " not given");
    values.push_back(std::move(*ordered[i]));
  }
  m_backend->upsert_loop_row(schema, values);
}

std::optional<std::int64_t> store::find_loop_evaluation(const std::optional<std::string>& candidate_sha256,
                                                        const std::string& run_id,
                                                        const std::string& proposal_id) const {
  return m_backend->find_loop_evaluation(candidate_sha256, run_id, proposal_id);
}

std::int64_t store::count_loop_rows(loop_table table, const std::string& run_id) const {
  return m_backend->count_loop_rows(detail::schema_of(table), run_id);
}

}  // namespace kjudge
