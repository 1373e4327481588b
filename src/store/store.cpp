#include "store/store.hpp"

#include <pwd.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <iterator>
#include <system_error>
#include <utility>

#include "core/error.hpp"
#include "core/json_path.hpp"
#include "core/utc.hpp"

namespace kjudge {
namespace detail {

// Throws internal_error for any SQLite status other than the three success codes. The message
// carries the call site and text because a bare "database is locked" cannot be traced otherwise.
int sqlite_check(int rc, sqlite3* db, const char* call, const char* file, int line) {
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) return rc;
  std::string msg = std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: ";
  msg += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  msg += " (" + std::string(sqlite3_errstr(rc)) + ", code " + std::to_string(rc) + ")";
  throw internal_error(msg);
}

}  // namespace detail

#define KJ_SQLITE_CHECK(db, call) ::kjudge::detail::sqlite_check((call), (db), #call, __FILE__, __LINE__)

namespace detail {
namespace {

// A forward migration: applying `sql` to a database at version `version - 1` brings it to
// `version`. Entries are applied in order, each in its own transaction together with the
// user_version bump, so a crash mid-migration leaves the previous version intact. Adding a schema
// change is appending one entry; never edit an entry that has shipped.
struct migration {
  int version;
  const char* sql;
};

constexpr migration k_migrations[] = {
    {1,
     "CREATE TABLE evaluations ("
     "  id INTEGER PRIMARY KEY,"
     "  created_at TEXT,"
     "  problem TEXT,"
     "  dtype TEXT,"
     "  device TEXT,"
     "  candidate_path TEXT,"
     "  candidate_sha256 TEXT,"
     "  candidate_source TEXT,"
     "  status TEXT,"
     "  rule TEXT,"
     "  speedup_median REAL,"
     "  speedup_lo REAL,"
     "  speedup_hi REAL,"
     "  result_json TEXT NOT NULL,"
     "  env_json TEXT"
     ");"
     "CREATE INDEX evaluations_problem_created ON evaluations(problem, created_at);"
     "CREATE INDEX evaluations_sha256 ON evaluations(candidate_sha256);"},
    // The search loop (src/loop/loop_store.cpp, `kjudge loop`): one row per run, iteration,
    // proposal and family. The run's journal in its workdir is the source of truth; these rows
    // are rewritten from it idempotently (keys are the journal's ids).
    {2,
     "CREATE TABLE loop_runs ("
     "  id TEXT PRIMARY KEY,"
     "  created_at TEXT,"
     "  problem TEXT,"
     "  device TEXT,"
     "  proposer TEXT,"
     "  workdir TEXT,"
     "  config_json TEXT NOT NULL"
     ");"
     "CREATE TABLE loop_iterations ("
     "  run_id TEXT NOT NULL REFERENCES loop_runs(id),"
     "  iteration INTEGER NOT NULL,"
     "  request_json TEXT,"
     "  proposer_status TEXT,"
     "  proposer_seconds REAL,"
     "  n_proposals INTEGER,"
     "  best_proposal TEXT,"
     "  best_speedup REAL,"
     "  best_lo REAL,"
     "  best_hi REAL,"
     "  best_time_s REAL,"
     "  improved INTEGER,"
     "  beam_json TEXT,"
     "  elapsed_s REAL,"
     "  PRIMARY KEY (run_id, iteration)"
     ");"
     "CREATE TABLE loop_proposals ("
     "  run_id TEXT NOT NULL REFERENCES loop_runs(id),"
     "  proposal_id TEXT NOT NULL,"
     "  iteration INTEGER NOT NULL,"
     "  file TEXT,"
     "  sha256 TEXT,"
     "  family TEXT,"
     "  state TEXT,"
     "  status TEXT,"
     "  rule TEXT,"
     "  speedup_median REAL,"
     "  speedup_lo REAL,"
     "  speedup_hi REAL,"
     "  time_s REAL,"
     "  evaluation_id INTEGER REFERENCES evaluations(id),"
     "  meta_json TEXT,"
     "  PRIMARY KEY (run_id, proposal_id)"
     ");"
     "CREATE INDEX loop_proposals_sha256 ON loop_proposals(sha256);"
     "CREATE TABLE loop_families ("
     "  run_id TEXT NOT NULL REFERENCES loop_runs(id),"
     "  family TEXT NOT NULL,"
     "  attempts INTEGER,"
     "  correct INTEGER,"
     "  rejected INTEGER,"
     "  best_proposal TEXT,"
     "  best_speedup REAL,"
     "  in_beam INTEGER,"
     "  retired INTEGER,"
     "  retired_reason TEXT,"
     "  retired_at INTEGER,"
     "  PRIMARY KEY (run_id, family)"
     ");"},
    // Idempotent inserts (`kjudge batch`, `kjudge store merge`): a caller-chosen key that at most
    // one row holds. Rows stored without a key keep NULL, which the partial index leaves out.
    {3,
     "ALTER TABLE evaluations ADD COLUMN dedup_key TEXT;"
     "CREATE UNIQUE INDEX evaluations_dedup_key ON evaluations(dedup_key) WHERE dedup_key IS NOT NULL;"},
};

constexpr bool migrations_are_consecutive() {
  int expected = 1;
  for (const auto& m : k_migrations) {
    if (m.version != expected) return false;
    ++expected;
  }
  return true;
}
static_assert(migrations_are_consecutive(), "migration versions must be 1, 2, 3, ... in order");

constexpr int k_latest_version = static_cast<int>(std::size(k_migrations));

// Owns one prepared statement.
class statement {
 public:
  statement(sqlite3* db, const char* sql) : m_db(db) {
    KJ_SQLITE_CHECK(db, sqlite3_prepare_v2(db, sql, -1, &m_stmt, nullptr));
  }
  ~statement() { sqlite3_finalize(m_stmt); }
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;
  statement(statement&&) = delete;
  statement& operator=(statement&&) = delete;

  void bind_text(int i, const std::optional<std::string>& v) {
    if (!v) {
      KJ_SQLITE_CHECK(m_db, sqlite3_bind_null(m_stmt, i));
      return;
    }
    // SQLITE_TRANSIENT: sqlite copies, so the caller's string may die before step().
    KJ_SQLITE_CHECK(m_db, sqlite3_bind_text64(m_stmt, i, v->data(), v->size(), SQLITE_TRANSIENT, SQLITE_UTF8));
  }
  void bind_real(int i, std::optional<double> v) {
    if (!v) {
      KJ_SQLITE_CHECK(m_db, sqlite3_bind_null(m_stmt, i));
      return;
    }
    KJ_SQLITE_CHECK(m_db, sqlite3_bind_double(m_stmt, i, *v));
  }
  void bind_int(int i, std::int64_t v) { KJ_SQLITE_CHECK(m_db, sqlite3_bind_int64(m_stmt, i, v)); }

  // True while a row is available.
  bool step() { return KJ_SQLITE_CHECK(m_db, sqlite3_step(m_stmt)) == SQLITE_ROW; }

  std::string text(int col) const {
    const auto* p = sqlite3_column_text(m_stmt, col);
    if (p == nullptr) return {};
    return std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, col)));
  }
  std::optional<double> real(int col) const {
    if (sqlite3_column_type(m_stmt, col) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_double(m_stmt, col);
  }
  std::int64_t integer(int col) const { return sqlite3_column_int64(m_stmt, col); }

 private:
  sqlite3* m_db;
  sqlite3_stmt* m_stmt = nullptr;
};

void exec(sqlite3* db, const char* sql) {
  KJ_SQLITE_CHECK(db, sqlite3_exec(db, sql, nullptr, nullptr, nullptr));
}

// BEGIN IMMEDIATE takes the write lock up front, so two judges writing at once wait on
// busy_timeout instead of failing with SQLITE_BUSY at COMMIT. Rolls back unless committed.
class transaction {
 public:
  explicit transaction(sqlite3* db) : m_db(db) { exec(db, "BEGIN IMMEDIATE"); }
  ~transaction() {
    if (!m_done) sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  transaction(transaction&&) = delete;
  transaction& operator=(transaction&&) = delete;
  void commit() {
    exec(m_db, "COMMIT");
    m_done = true;
  }

 private:
  sqlite3* m_db;
  bool m_done = false;
};

int read_user_version(sqlite3* db) {
  statement s(db, "PRAGMA user_version");
  s.step();
  return static_cast<int>(s.integer(0));
}

std::optional<double> ci_bound(const nlohmann::json& result, std::size_t i) {
  const auto* ci = json_at(result, {"speedup", "ci95"});
  if (ci == nullptr || !ci->is_array() || ci->size() != 2 || !(*ci)[i].is_number()) return std::nullopt;
  return (*ci)[i].get<double>();
}

// Invalid UTF-8 (a candidate path on Linux may hold any bytes) must not make storing fail.
std::string dump_json(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace
}  // namespace detail

int store::latest_schema_version() {
  return detail::k_latest_version;
}

store::store(const std::filesystem::path& file, int busy_timeout_ms) : m_path(file) {
  namespace fs = std::filesystem;
  const bool in_memory = file == ":memory:";
  if (!in_memory && file.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    if (ec)
      throw usage_error(file.string() + ": cannot create directory " + file.parent_path().string() + ": " +
                        ec.message());
  }
  int rc = sqlite3_open_v2(file.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    std::string why = m_db != nullptr ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    sqlite3_close(m_db);
    m_db = nullptr;
    throw usage_error(file.string() + ": cannot open database: " + why);
  }
  try {
    KJ_SQLITE_CHECK(m_db, sqlite3_busy_timeout(m_db, busy_timeout_ms));
    // The first statement reads the header: a file that is not SQLite is the user's mistake.
    {
      const char* sql = "PRAGMA journal_mode=WAL";
      sqlite3_stmt* raw = nullptr;
      rc = sqlite3_prepare_v2(m_db, sql, -1, &raw, nullptr);
      if (rc == SQLITE_OK) rc = sqlite3_step(raw);
      std::string mode = rc == SQLITE_ROW && sqlite3_column_text(raw, 0) != nullptr
                             ? reinterpret_cast<const char*>(sqlite3_column_text(raw, 0))
                             : "";
      std::string err = sqlite3_errmsg(m_db);
      sqlite3_finalize(raw);
      if (rc == SQLITE_NOTADB) throw usage_error(file.string() + ": not a kjudge database: " + err);
      if (rc != SQLITE_ROW) detail::sqlite_check(rc, m_db, sql, __FILE__, __LINE__);
      // WAL lets `kjudge history` read while a judge writes; an in-memory DB has no journal file.
      if (!in_memory && mode != "wal")
        throw internal_error(file.string() + ": cannot switch the database to WAL mode (mode is '" + mode + "')");
    }
    detail::exec(m_db, "PRAGMA foreign_keys=ON");
    // NORMAL is durable across application crashes in WAL mode; FULL would fsync every commit.
    detail::exec(m_db, "PRAGMA synchronous=NORMAL");
    migrate();
  } catch (...) {
    sqlite3_close(m_db);
    m_db = nullptr;
    throw;
  }
}

store::~store() {
  if (m_db != nullptr) sqlite3_close(m_db);
}

store::store(store&& other) noexcept : m_db(std::exchange(other.m_db, nullptr)), m_path(std::move(other.m_path)) {}

store& store::operator=(store&& other) noexcept {
  if (this != &other) {
    if (m_db != nullptr) sqlite3_close(m_db);
    m_db = std::exchange(other.m_db, nullptr);
    m_path = std::move(other.m_path);
  }
  return *this;
}

void store::migrate() {
  const int found = detail::read_user_version(m_db);
  if (found > detail::k_latest_version)
    throw usage_error(m_path.string() + ": database schema version " + std::to_string(found) +
                      " is newer than this kjudge supports (version " + std::to_string(detail::k_latest_version) +
                      "); use a newer kjudge or another --db file");
  for (const auto& m : detail::k_migrations) {
    if (m.version <= found) continue;
    detail::transaction tx(m_db);
    // Another process may have migrated between our read and taking the write lock.
    if (detail::read_user_version(m_db) >= m.version) continue;
    detail::exec(m_db, m.sql);
    // PRAGMA takes no bound parameters; the value is our own integer.
    detail::exec(m_db, ("PRAGMA user_version=" + std::to_string(m.version)).c_str());
    tx.commit();
  }
}

int store::schema_version() const {
  return detail::read_user_version(m_db);
}

std::int64_t store::add_evaluation(const nlohmann::json& result, const std::string& source,
                                   const std::string& dedup_key) {
  // Validate before touching the file: a row that history cannot find or show is worse than none.
  const auto schema = string_at(result, {"schema"});
  if (!schema || schema->rfind("kjudge.result/", 0) != 0)
    throw usage_error("result document has no \"schema\": \"kjudge.result/N\"; not stored");
  const auto problem = string_at(result, {"problem", "name"});
  if (!problem || problem->empty()) throw usage_error("result document has no problem.name; not stored");
  const auto status = string_at(result, {"verdict", "status"});
  if (!status || status->empty()) throw usage_error("result document has no verdict.status; not stored");

  auto created_at = string_at(result, {"created_at"});
  if (!created_at) created_at = utc_now();
  auto device = string_at(result, {"device"});
  if (!device) device = string_at(result, {"problem", "device"});
  std::optional<std::string> env_json;
  if (const auto* env = json_at(result, {"env"})) env_json = detail::dump_json(*env);

  // BEGIN IMMEDIATE holds the write lock from here to COMMIT, so no other process can insert the
  // same key between this lookup and the insert.
  detail::transaction tx(m_db);
  if (!dedup_key.empty()) {
    detail::statement q(m_db, "SELECT id FROM evaluations WHERE dedup_key = ?1");
    q.bind_text(1, dedup_key);
    if (q.step()) return q.integer(0);
  }
  detail::statement ins(m_db,
                        "INSERT INTO evaluations (created_at, problem, dtype, device, candidate_path, "
                        "candidate_sha256, candidate_source, status, rule, speedup_median, speedup_lo, speedup_hi, "
                        "result_json, env_json, dedup_key) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
                        "?12, ?13, ?14, ?15)");
  ins.bind_text(1, created_at);
  ins.bind_text(2, problem);
  ins.bind_text(3, string_at(result, {"problem", "dtype"}));
  ins.bind_text(4, device);
  ins.bind_text(5, string_at(result, {"candidate", "path"}));
  ins.bind_text(6, string_at(result, {"candidate", "sha256"}));
  ins.bind_text(7, source);
  ins.bind_text(8, status);
  ins.bind_text(9, string_at(result, {"verdict", "rule"}));
  ins.bind_real(10, number_at(result, {"speedup", "median"}));
  ins.bind_real(11, detail::ci_bound(result, 0));
  ins.bind_real(12, detail::ci_bound(result, 1));
  ins.bind_text(13, detail::dump_json(result));
  ins.bind_text(14, env_json);
  ins.bind_text(15, dedup_key.empty() ? std::nullopt : std::optional<std::string>(dedup_key));
  ins.step();
  const std::int64_t id = sqlite3_last_insert_rowid(m_db);
  tx.commit();
  return id;
}

std::vector<history_row> store::history(const std::string& problem, int limit) const {
  detail::statement q(m_db,
                      "SELECT id, created_at, candidate_path, candidate_sha256, dtype, device, "
                      "status, rule, speedup_median, speedup_lo, speedup_hi, "
                      "json_extract(result_json, '$.problem.spec_sha256') FROM evaluations "
                      "WHERE problem = ?1 ORDER BY created_at DESC, id DESC LIMIT ?2");
  q.bind_text(1, problem);
  q.bind_int(2, limit > 0 ? limit : -1);  // LIMIT -1: no limit
  std::vector<history_row> rows;
  while (q.step()) {
    history_row r;
    r.id = q.integer(0);
    r.created_at = q.text(1);
    r.candidate_path = q.text(2);
    r.sha256_prefix = q.text(3).substr(0, 12);
    r.dtype = q.text(4);
    r.device = q.text(5);
    r.status = q.text(6);
    r.rule = q.text(7);
    r.speedup_median = q.real(8);
    r.speedup_lo = q.real(9);
    r.speedup_hi = q.real(10);
    r.spec_sha256_prefix = q.text(11).substr(0, 12);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::optional<nlohmann::json> store::get(std::int64_t id) const {
  detail::statement q(m_db, "SELECT result_json FROM evaluations WHERE id = ?1");
  q.bind_int(1, id);
  if (!q.step()) return std::nullopt;
  try {
    return nlohmann::json::parse(q.text(0));
  } catch (const nlohmann::json::exception& e) {
    throw internal_error(m_path.string() + ": evaluation " + std::to_string(id) +
                         " holds an unreadable result document: " + e.what());
  }
}

std::vector<std::string> store::keys_with_prefix(const std::string& prefix) const {
  // substr/length count characters on both sides, so a multibyte prefix compares whole.
  detail::statement q(m_db,
                      "SELECT dedup_key FROM evaluations WHERE dedup_key IS NOT NULL AND "
                      "substr(dedup_key, 1, length(?1)) = ?1 ORDER BY dedup_key");
  q.bind_text(1, prefix);
  std::vector<std::string> keys;
  while (q.step()) keys.push_back(q.text(0));
  return keys;
}

std::optional<std::string> store::get_source(std::int64_t id) const {
  detail::statement q(m_db, "SELECT candidate_source FROM evaluations WHERE id = ?1");
  q.bind_int(1, id);
  if (!q.step()) return std::nullopt;
  return q.text(0);
}

}  // namespace kjudge
