#include "loop/loop_store.hpp"

#include <sqlite3.h>

#include <set>

#include "core/error.hpp"
#include "core/json_path.hpp"

namespace kjudge::loop {

namespace detail {
namespace {

void check(int rc, sqlite3* db, const char* what) {
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) return;
  throw internal_error(std::string("loop store: ") + what + ": " +
                       (db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
}

// Owns one prepared statement; binds optional values as NULL.
class statement {
 public:
  statement(sqlite3* db, const char* sql) : m_db(db) {
    check(sqlite3_prepare_v2(db, sql, -1, &m_stmt, nullptr), db, sql);
  }
  ~statement() { sqlite3_finalize(m_stmt); }
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;

  void text(int i, const std::optional<std::string>& v) {
    if (!v) return null(i);
    check(sqlite3_bind_text64(m_stmt, i, v->data(), v->size(), SQLITE_TRANSIENT, SQLITE_UTF8), m_db, "bind");
  }
  void real(int i, std::optional<double> v) {
    if (!v) return null(i);
    check(sqlite3_bind_double(m_stmt, i, *v), m_db, "bind");
  }
  void integer(int i, std::optional<std::int64_t> v) {
    if (!v) return null(i);
    check(sqlite3_bind_int64(m_stmt, i, *v), m_db, "bind");
  }
  void null(int i) { check(sqlite3_bind_null(m_stmt, i), m_db, "bind"); }
  bool step() {
    const int rc = sqlite3_step(m_stmt);
    check(rc, m_db, sqlite3_sql(m_stmt));
    return rc == SQLITE_ROW;
  }
  std::int64_t column_int(int c) const { return sqlite3_column_int64(m_stmt, c); }

 private:
  sqlite3* m_db;
  sqlite3_stmt* m_stmt = nullptr;
};

std::string dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<std::string> str(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_string()) return std::nullopt;
  return j[key].get<std::string>();
}
std::optional<double> num(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}
std::optional<std::int64_t> boolean(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_boolean()) return std::nullopt;
  return j[key].get<bool>() ? 1 : 0;
}

}  // namespace
}  // namespace detail

// The loop's tables are written over SQLite directly (below), so its store must be a file.
const std::filesystem::path& loop_store::check_sqlite(const std::filesystem::path& db) {
  if (store::is_postgres_url(db.string()))
    throw usage_error("kjudge loop keeps its runs in an SQLite store; " + store::display_name(db.string()) +
                      " is a PostgreSQL URL: pass --db FILE");
  return db;
}

loop_store::loop_store(const std::filesystem::path& db) : m_store(check_sqlite(db)) {
  const int rc = sqlite3_open_v2(db.c_str(), &m_db, SQLITE_OPEN_READWRITE, nullptr);
  if (rc != SQLITE_OK) {
    const std::string why = m_db != nullptr ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    sqlite3_close(m_db);
    m_db = nullptr;
    throw usage_error(db.string() + ": cannot open database: " + why);
  }
  // The same writer lock as kjudge::store: another judge may be writing its evaluations.
  sqlite3_busy_timeout(m_db, 5000);
}

loop_store::~loop_store() {
  if (m_db != nullptr) sqlite3_close(m_db);
}

void loop_store::upsert_run(const nlohmann::json& c) {
  detail::statement s(
      m_db,
      "INSERT INTO loop_runs (id, created_at, problem, device, proposer, workdir, config_json) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(id) DO UPDATE SET config_json = excluded.config_json, "
      "workdir = excluded.workdir");
  s.text(1, detail::str(c, "id"));
  s.text(2, detail::str(c, "created_at"));
  s.text(3, detail::str(c, "problem_name"));
  s.text(4, detail::str(c, "device"));
  s.text(5, detail::str(c, "proposer"));
  s.text(6, detail::str(c, "workdir"));
  s.text(7, detail::dump(c));
  s.step();
}

void loop_store::upsert_iteration(const std::string& run_id, const nlohmann::json& r) {
  detail::statement s(
      m_db,
      "INSERT OR REPLACE INTO loop_iterations (run_id, iteration, request_json, proposer_status, "
      "proposer_seconds, n_proposals, best_proposal, best_speedup, best_lo, best_hi, best_time_s, improved, "
      "beam_json, elapsed_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)");
  s.text(1, run_id);
  s.integer(2, r.value("iteration", 0));
  s.text(3, r.contains("request") ? std::optional<std::string>(detail::dump(r["request"])) : std::nullopt);
  s.text(4, detail::str(r, "proposer_status"));
  s.real(5, detail::num(r, "proposer_seconds"));
  s.integer(
      6, r.contains("n_proposals") ? std::optional<std::int64_t>(r["n_proposals"].get<std::int64_t>()) : std::nullopt);
  const nlohmann::json best = r.value("best", nlohmann::json());
  if (best.is_object()) {
    s.text(7, detail::str(best, "id"));
    s.real(8, detail::num(best, "median"));
    s.real(9, best["ci95"][0].get<double>());
    s.real(10, best["ci95"][1].get<double>());
    s.real(11, detail::num(best, "time_s"));
  } else {
    for (int i = 7; i <= 11; ++i) s.null(i);
  }
  s.integer(12, detail::boolean(r, "improved"));
  s.text(13, r.contains("beam") ? std::optional<std::string>(detail::dump(r["beam"])) : std::nullopt);
  s.real(14, detail::num(r, "elapsed_s"));
  s.step();
}

void loop_store::upsert_proposal(const std::string& run_id, const nlohmann::json& r,
                                 std::optional<std::int64_t> evaluation_id) {
  detail::statement s(
      m_db,
      "INSERT OR REPLACE INTO loop_proposals (run_id, proposal_id, iteration, file, sha256, family, state, "
      "status, rule, speedup_median, speedup_lo, speedup_hi, time_s, evaluation_id, meta_json) VALUES "
      "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)");
  s.text(1, run_id);
  s.text(2, detail::str(r, "id"));
  s.integer(3, r.value("iteration", 0));
  s.text(4, detail::str(r, "file"));
  s.text(5, detail::str(r, "sha256"));
  s.text(6, detail::str(r, "family"));
  s.text(7, detail::str(r, "state"));
  s.text(8, detail::str(r, "status"));
  s.text(9, detail::str(r, "rule"));
  s.real(10, detail::num(r, "median"));
  s.real(11, detail::num(r, "lo"));
  s.real(12, detail::num(r, "hi"));
  s.real(13, detail::num(r, "time_s"));
  s.integer(14, evaluation_id);
  s.text(15, r.contains("meta") && !r["meta"].is_null() ? std::optional<std::string>(detail::dump(r["meta"]))
                                                        : std::nullopt);
  s.step();
}

void loop_store::upsert_family(const std::string& run_id, const nlohmann::json& r) {
  detail::statement s(
      m_db,
      "INSERT OR REPLACE INTO loop_families (run_id, family, attempts, correct, rejected, best_proposal, "
      "best_speedup, in_beam, retired, retired_reason, retired_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
      "?10, ?11)");
  s.text(1, run_id);
  s.text(2, detail::str(r, "name"));
  s.integer(3, r.value("attempts", 0));
  s.integer(4, r.value("correct", 0));
  s.integer(5, r.value("rejected", 0));
  const nlohmann::json best = r.value("best", nlohmann::json());
  s.text(6, best.is_object() ? detail::str(best, "id") : std::nullopt);
  s.real(7, best.is_object() ? detail::num(best, "median") : std::nullopt);
  s.integer(8, detail::boolean(r, "in_beam"));
  s.integer(9, detail::boolean(r, "retired"));
  s.text(10, detail::str(r, "retired_reason"));
  s.integer(11, r.value("retired_at", 0));
  s.step();
}

std::int64_t loop_store::ensure_evaluation(const nlohmann::json& result, const std::string& source,
                                           const std::string& run_id, const std::string& proposal_id) {
  {
    detail::statement q(
        m_db,
        "SELECT id FROM evaluations WHERE candidate_sha256 IS ?1 AND "
        "json_extract(result_json, '$.loop.run') = ?2 AND json_extract(result_json, '$.loop.proposal') = ?3 "
        "ORDER BY id LIMIT 1");
    q.text(1, string_at(result, {"candidate", "sha256"}));
    q.text(2, run_id);
    q.text(3, proposal_id);
    if (q.step()) return q.column_int(0);
  }
  return m_store.add_evaluation(result, source);
}

std::int64_t loop_store::count_rows(const std::string& table, const std::string& run_id) const {
  static const std::set<std::string> known{"loop_runs", "loop_iterations", "loop_proposals", "loop_families"};
  if (!known.count(table)) throw internal_error("count_rows: unknown table " + table);
  const std::string sql =
      "SELECT COUNT(*) FROM " + table + (table == "loop_runs" ? " WHERE id = ?1" : " WHERE run_id = ?1");
  detail::statement q(m_db, sql.c_str());
  q.text(1, run_id);
  q.step();
  return q.column_int(0);
}

}  // namespace kjudge::loop
