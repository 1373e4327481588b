// The SQLite engine of the store: one file in WAL mode, schema version in `PRAGMA user_version`.
#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <iterator>
#include <system_error>
#include <thread>
#include <utility>
#include <variant>

#include "core/error.hpp"
#include "store/detail/backend.hpp"

namespace kjudge::detail {

// Throws internal_error for any SQLite status other than the three success codes. The message
// carries the call site and text because a bare "database is locked" cannot be traced otherwise.
int sqlite_check(int rc, sqlite3* db, const char* call, const char* file, int line) {
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) return rc;
  std::string msg = std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: ";
  msg += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  msg += " (" + std::string(sqlite3_errstr(rc)) + ", code " + std::to_string(rc) + ")";
  throw internal_error(msg);
}

#define KJ_SQLITE_CHECK(db, call) ::kjudge::detail::sqlite_check((call), (db), #call, __FILE__, __LINE__)

namespace {

// A forward migration: applying `sql` to a database at version `version - 1` brings it to
// `version`. Entries are applied in order, each in its own transaction together with the
// user_version bump, so a crash mid-migration leaves the previous version intact. Adding a schema
// change is appending one entry here and the same one in postgres_backend.cpp; never edit an
// entry that has shipped.
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
  void bind_value(int i, const loop_value& v) {
    if (const auto* n = std::get_if<std::int64_t>(&v)) return bind_int(i, *n);
    if (const auto* x = std::get_if<double>(&v)) return bind_real(i, *x);
    if (const auto* t = std::get_if<std::string>(&v)) return bind_text(i, *t);
    KJ_SQLITE_CHECK(m_db, sqlite3_bind_null(m_stmt, i));
  }

  // True while a row is available.
  bool step() { return KJ_SQLITE_CHECK(m_db, sqlite3_step(m_stmt)) == SQLITE_ROW; }

  std::string text(int col) const {
    const auto* p = sqlite3_column_text(m_stmt, col);
    if (p == nullptr) return {};
    return std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, col)));
  }
  std::optional<std::string> opt_text(int col) const {
    if (sqlite3_column_type(m_stmt, col) == SQLITE_NULL) return std::nullopt;
    return text(col);
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

// The columns of stored_row in the order of k_insert_sql's parameters ?1..?15.
constexpr const char* k_insert_sql =
    "INSERT INTO evaluations (created_at, problem, dtype, device, candidate_path, candidate_sha256, "
    "candidate_source, status, rule, speedup_median, speedup_lo, speedup_hi, result_json, env_json, dedup_key) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)";

constexpr const char* k_row_columns =
    "id, created_at, problem, dtype, device, candidate_path, candidate_sha256, candidate_source, status, rule, "
    "speedup_median, speedup_lo, speedup_hi, result_json, env_json, dedup_key";

std::optional<std::string> opt(const std::string& s) {
  if (s.empty()) return std::nullopt;
  return s;
}

class sqlite_backend final : public store_backend {
 public:
  sqlite_backend(const std::filesystem::path& file, int busy_timeout_ms)
      : m_path(file), m_busy_timeout_ms(busy_timeout_ms) {
    open(busy_timeout_ms);
    try {
      configure();
      migrate();
    } catch (...) {
      sqlite3_close(m_db);
      m_db = nullptr;
      throw;
    }
  }
  ~sqlite_backend() override { sqlite3_close(m_db); }
  sqlite_backend(const sqlite_backend&) = delete;
  sqlite_backend& operator=(const sqlite_backend&) = delete;
  sqlite_backend(sqlite_backend&&) = delete;
  sqlite_backend& operator=(sqlite_backend&&) = delete;

  int schema_version() const override { return read_user_version(m_db); }

  add_outcome insert(const stored_row& r, bool keyless_identity) override {
    // BEGIN IMMEDIATE holds the write lock from here to COMMIT, so no other process can insert
    // the same key (or the same keyless row) between this lookup and the insert.
    transaction tx(m_db);
    if (const auto existing = find_existing(r, keyless_identity)) return {*existing, false};
    statement ins(m_db, k_insert_sql);
    ins.bind_text(1, r.created_at);
    ins.bind_text(2, r.problem);
    ins.bind_text(3, r.dtype);
    ins.bind_text(4, r.device);
    ins.bind_text(5, r.candidate_path);
    ins.bind_text(6, r.candidate_sha256);
    ins.bind_text(7, r.candidate_source);
    ins.bind_text(8, r.status);
    ins.bind_text(9, r.rule);
    ins.bind_real(10, r.speedup_median);
    ins.bind_real(11, r.speedup_lo);
    ins.bind_real(12, r.speedup_hi);
    ins.bind_text(13, r.result_json);
    ins.bind_text(14, r.env_json);
    ins.bind_text(15, opt(r.dedup_key));
    ins.step();
    const std::int64_t id = sqlite3_last_insert_rowid(m_db);
    tx.commit();
    return {id, true};
  }

  std::vector<history_row> history(const std::string& problem, int limit) const override {
    statement q(m_db,
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

  std::optional<std::string> result_json(std::int64_t id) const override {
    return one_text("SELECT result_json FROM evaluations WHERE id = ?1", id);
  }
  std::optional<std::string> source(std::int64_t id) const override {
    return one_text("SELECT candidate_source FROM evaluations WHERE id = ?1", id);
  }

  std::vector<std::string> keys_with_prefix(const std::string& prefix) const override {
    // substr/length count characters on both sides, so a multibyte prefix compares whole; the
    // default BINARY collation sorts bytewise.
    statement q(m_db,
                "SELECT dedup_key FROM evaluations WHERE dedup_key IS NOT NULL AND "
                "substr(dedup_key, 1, length(?1)) = ?1 ORDER BY dedup_key");
    q.bind_text(1, prefix);
    std::vector<std::string> keys;
    while (q.step()) keys.push_back(q.text(0));
    return keys;
  }

  void for_each_row(const std::function<void(const stored_row&)>& visit) const override {
    statement q(m_db, (std::string("SELECT ") + k_row_columns + " FROM evaluations ORDER BY id").c_str());
    while (q.step()) {
      stored_row r;
      r.id = q.integer(0);
      r.created_at = q.opt_text(1);
      r.problem = q.opt_text(2);
      r.dtype = q.opt_text(3);
      r.device = q.opt_text(4);
      r.candidate_path = q.opt_text(5);
      r.candidate_sha256 = q.opt_text(6);
      r.candidate_source = q.text(7);
      r.status = q.opt_text(8);
      r.rule = q.opt_text(9);
      r.speedup_median = q.real(10);
      r.speedup_lo = q.real(11);
      r.speedup_hi = q.real(12);
      r.result_json = q.text(13);
      r.env_json = q.opt_text(14);
      r.dedup_key = q.text(15);
      visit(r);
    }
  }

  void upsert_loop_row(const loop_table_schema& schema, const std::vector<loop_value>& values) override {
    statement s(m_db, loop_upsert_sql(schema, '?').c_str());
    for (std::size_t i = 0; i < values.size(); ++i) s.bind_value(static_cast<int>(i + 1), values[i]);
    s.step();
  }

  std::optional<std::int64_t> find_loop_evaluation(const std::optional<std::string>& candidate_sha256,
                                                   const std::string& run_id,
                                                   const std::string& proposal_id) const override {
    statement q(m_db,
                "SELECT id FROM evaluations WHERE candidate_sha256 IS ?1 AND "
                "json_extract(result_json, '$.loop.run') = ?2 AND json_extract(result_json, '$.loop.proposal') = ?3 "
                "ORDER BY id LIMIT 1");
    q.bind_text(1, candidate_sha256);
    q.bind_text(2, run_id);
    q.bind_text(3, proposal_id);
    if (q.step()) return q.integer(0);
    return std::nullopt;
  }

  std::int64_t count_loop_rows(const loop_table_schema& schema, const std::string& run_id) const override {
    statement q(m_db, loop_count_sql(schema, '?').c_str());
    q.bind_text(1, run_id);
    q.step();
    return q.integer(0);
  }

 private:
  void open(int busy_timeout_ms) {
    namespace fs = std::filesystem;
    if (m_path != ":memory:" && m_path.has_parent_path()) {
      std::error_code ec;
      fs::create_directories(m_path.parent_path(), ec);
      if (ec)
        throw usage_error(m_path.string() + ": cannot create directory " + m_path.parent_path().string() + ": " +
                          ec.message());
    }
    const int rc = sqlite3_open_v2(m_path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc != SQLITE_OK) {
      std::string why = m_db != nullptr ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
      sqlite3_close(m_db);
      m_db = nullptr;
      throw usage_error(m_path.string() + ": cannot open database: " + why);
    }
    KJ_SQLITE_CHECK(m_db, sqlite3_busy_timeout(m_db, busy_timeout_ms));
  }

  // `PRAGMA journal_mode=WAL` on a database that other processes are creating at the same
  // moment can fail with SQLITE_BUSY without SQLite calling the busy handler (the switch needs
  // an exclusive lock, and SQLite refuses to wait on some lock upgrades to avoid deadlock). So
  // the switch is retried here, every 5 ms, for as long as the busy timeout allows.
  std::string switch_to_wal() {
    const char* sql = "PRAGMA journal_mode=WAL";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(m_busy_timeout_ms);
    for (;;) {
      sqlite3_stmt* raw = nullptr;
      int rc = sqlite3_prepare_v2(m_db, sql, -1, &raw, nullptr);
      if (rc == SQLITE_OK) rc = sqlite3_step(raw);
      std::string mode = rc == SQLITE_ROW && sqlite3_column_text(raw, 0) != nullptr
                             ? reinterpret_cast<const char*>(sqlite3_column_text(raw, 0))
                             : "";
      std::string err = sqlite3_errmsg(m_db);
      sqlite3_finalize(raw);
      // The first statement reads the header: a file that is not SQLite is the user's mistake.
      if (rc == SQLITE_NOTADB) throw usage_error(m_path.string() + ": not a kjudge database: " + err);
      if (rc == SQLITE_ROW) return mode;
      if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline)
        sqlite_check(rc, m_db, sql, __FILE__, __LINE__);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  void configure() {
    const std::string mode = switch_to_wal();
    // WAL lets `kjudge history` read while a judge writes; an in-memory DB has no journal file.
    if (m_path != ":memory:" && mode != "wal")
      throw internal_error(m_path.string() + ": cannot switch the database to WAL mode (mode is '" + mode + "')");
    exec(m_db, "PRAGMA foreign_keys=ON");
    // NORMAL is durable across application crashes in WAL mode; FULL would fsync every commit.
    exec(m_db, "PRAGMA synchronous=NORMAL");
  }

  void migrate() {
    const int found = read_user_version(m_db);
    if (found > k_latest_version)
      throw usage_error(m_path.string() + ": database schema version " + std::to_string(found) +
                        " is newer than this kjudge supports (version " + std::to_string(k_latest_version) +
                        "); use a newer kjudge or another --db file");
    for (const auto& m : k_migrations) {
      if (m.version <= found) continue;
      transaction tx(m_db);
      // Another process may have migrated between our read and taking the write lock.
      if (read_user_version(m_db) >= m.version) continue;
      exec(m_db, m.sql);
      // PRAGMA takes no bound parameters; the value is our own integer.
      exec(m_db, ("PRAGMA user_version=" + std::to_string(m.version)).c_str());
      tx.commit();
    }
  }

  // Inside insert()'s transaction: the id of the row that makes inserting `r` a repeat.
  std::optional<std::int64_t> find_existing(const stored_row& r, bool keyless_identity) const {
    if (!r.dedup_key.empty()) {
      statement q(m_db, "SELECT id FROM evaluations WHERE dedup_key = ?1");
      q.bind_text(1, r.dedup_key);
      if (q.step()) return q.integer(0);
      return std::nullopt;
    }
    if (!keyless_identity) return std::nullopt;
    statement q(m_db,
                "SELECT id FROM evaluations WHERE candidate_sha256 IS ?1 AND created_at IS ?2 AND problem IS ?3 "
                "AND dtype IS ?4 AND device IS ?5 ORDER BY id LIMIT 1");
    q.bind_text(1, r.candidate_sha256);
    q.bind_text(2, r.created_at);
    q.bind_text(3, r.problem);
    q.bind_text(4, r.dtype);
    q.bind_text(5, r.device);
    if (q.step()) return q.integer(0);
    return std::nullopt;
  }

  std::optional<std::string> one_text(const char* sql, std::int64_t id) const {
    statement q(m_db, sql);
    q.bind_int(1, id);
    if (!q.step()) return std::nullopt;
    return q.text(0);
  }

  sqlite3* m_db = nullptr;
  std::filesystem::path m_path;
  int m_busy_timeout_ms = 0;  // how long a locked database is waited for, in ms
};

}  // namespace

int latest_schema_version() {
  return k_latest_version;
}

std::unique_ptr<store_backend> open_sqlite_backend(const std::filesystem::path& file, int busy_timeout_ms) {
  return std::make_unique<sqlite_backend>(file, busy_timeout_ms);
}

}  // namespace kjudge::detail
