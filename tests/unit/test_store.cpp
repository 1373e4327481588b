// The store on SQLite (DESIGN.md §2.4): creation, migrations, refusal of newer schemas,
// transactional inserts, history order.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>  // mkdtemp, setenv
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/paths.hpp"
#include "store/store.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

class temp_dir {
 public:
  temp_dir() {
    std::string tmpl = (fs::temp_directory_path() / "kjudge_store_test.XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    m_path = tmpl;
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(m_path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  temp_dir(temp_dir&&) = delete;
  temp_dir& operator=(temp_dir&&) = delete;
  const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
};

// A raw connection, to inspect or tamper with the file behind the store's back.
class raw_db {
 public:
  explicit raw_db(const fs::path& p) {
    if (sqlite3_open(p.c_str(), &m_db) != SQLITE_OK) throw std::runtime_error("open failed");
  }
  ~raw_db() { sqlite3_close(m_db); }
  raw_db(const raw_db&) = delete;
  raw_db& operator=(const raw_db&) = delete;
  raw_db(raw_db&&) = delete;
  raw_db& operator=(raw_db&&) = delete;
  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err != nullptr ? err : "?";
      sqlite3_free(err);
      throw std::runtime_error(sql + ": " + msg);
    }
  }
  std::string text(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error(sql + ": " + sqlite3_errmsg(m_db));
    std::string out;
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0) != nullptr)
      out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return out;
  }
  long long integer(const std::string& sql) { return std::stoll(text(sql)); }

 private:
  sqlite3* m_db = nullptr;
};

json make_result(const std::string& problem, const std::string& created_at, const std::string& status = "ok_faster",
                 double speedup = 1.5) {
  json r = {
      {"schema", "kjudge.result/1"},
      {"kjudge_version", "0.1.0"},
      {"created_at", created_at},
      {"problem", {{"name", problem}, {"dtype", "f32"}, {"device", "cpu"}}},
      {"candidate",
       {{"path", "examples/" + problem + "/fast.cpp"},
        {"sha256", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
        {"info", nullptr}}},
      {"device", "cpu"},
      {"mode", "cold"},
      {"verdict", {{"status", status}, {"rule", nullptr}, {"reasons", json::array()}}},
      {"cases", json::array()},
      {"speedup",
       {{"baseline", "per-case strongest"},
        {"median", speedup},
        {"ci95", {speedup - 0.1, speedup + 0.1}},
        {"geomean_over_cases", true}}},
      {"env", {{"host", "test-host"}, {"cores", 4}}},
  };
  return r;
}

long long row_count(const fs::path& db) {
  raw_db raw(db);
  return raw.integer("SELECT count(*) FROM evaluations");
}

}  // namespace

TEST(store_test, creates_file_and_parent_directories_at_latest_version) {
  temp_dir dir;
  const fs::path db = dir.path() / "a" / "b" / "kjudge.db";
  kjudge::store s(db);
  EXPECT_TRUE(fs::exists(db));
  EXPECT_EQ(s.schema_version(), kjudge::store::latest_schema_version());
  EXPECT_GE(kjudge::store::latest_schema_version(), 1);
  EXPECT_EQ(s.path(), db);
}

TEST(store_test, uses_wal_journal_mode) {
  temp_dir dir;
  const fs::path db = dir.path() / "kjudge.db";
  kjudge::store s(db);
  s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "src");
  raw_db raw(db);
  EXPECT_EQ(raw.text("PRAGMA journal_mode"), "wal");
  // WAL lets another connection read while the store is open.
  EXPECT_EQ(raw.integer("SELECT count(*) FROM evaluations"), 1);
}

TEST(store_test, migrates_a_version_0_database) {
  temp_dir dir;
  const fs::path db = dir.path() / "old.db";
  {
    raw_db raw(db);
    raw.exec("CREATE TABLE unrelated(x INTEGER); INSERT INTO unrelated VALUES (42);");
    ASSERT_EQ(raw.integer("PRAGMA user_version"), 0);
  }
  kjudge::store s(db);
  EXPECT_EQ(s.schema_version(), kjudge::store::latest_schema_version());
  raw_db raw(db);
  EXPECT_EQ(raw.integer("PRAGMA user_version"), kjudge::store::latest_schema_version());
  EXPECT_EQ(raw.integer("SELECT count(*) FROM sqlite_master WHERE type='index' AND "
                        "name='evaluations_problem_created'"),
            1);
  EXPECT_EQ(raw.integer("SELECT count(*) FROM sqlite_master WHERE type='index' AND "
                        "name='evaluations_sha256'"),
            1);
  EXPECT_EQ(raw.integer("SELECT x FROM unrelated"), 42);  // migration touched nothing else
  EXPECT_GT(s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), ""), 0);
}

TEST(store_test, reopening_keeps_rows_and_does_not_migrate_again) {
  temp_dir dir;
  const fs::path db = dir.path() / "kjudge.db";
  const json doc = make_result("layernorm", "2026-12-02T10:00:00Z");
  std::int64_t id = 0;
  {
    kjudge::store s(db);
    id = s.add_evaluation(doc, "int kj_run() { return 0; }");
  }
  kjudge::store s(db);
  EXPECT_EQ(s.schema_version(), kjudge::store::latest_schema_version());
  auto got = s.get(id);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, doc);
  EXPECT_EQ(s.get_source(id).value_or(""), "int kj_run() { return 0; }");
  EXPECT_EQ(s.history("layernorm").size(), 1u);
  EXPECT_FALSE(s.get(id + 1000).has_value());
  EXPECT_FALSE(s.get_source(id + 1000).has_value());
}

TEST(store_test, history_is_newest_first_limited_and_per_problem) {
  temp_dir dir;
  kjudge::store s(dir.path() / "kjudge.db");
  // Inserted out of time order: history orders by created_at, not insertion.
  const auto id_b = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:02Z", "ok_faster", 1.2), "");
  const auto id_a = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:01Z", "wrong_result", 0.9), "");
  const auto id_d = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:04Z", "ok_not_faster", 1.0), "");
  const auto id_c = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:03Z", "crash", 2.0), "");
  s.add_evaluation(make_result("layernorm", "2026-12-02T10:00:09Z"), "");
  // Same timestamp as id_d: the later insertion counts as newer.
  const auto id_e = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:04Z", "hack", 3.0), "");

  auto all = s.history("softmax", 0);
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(all[0].id, id_e);
  EXPECT_EQ(all[1].id, id_d);
  EXPECT_EQ(all[2].id, id_c);
  EXPECT_EQ(all[3].id, id_b);
  EXPECT_EQ(all[4].id, id_a);

  auto top = s.history("softmax", 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].id, id_e);
  EXPECT_EQ(top[1].id, id_d);

  const auto& r = all[3];
  EXPECT_EQ(r.created_at, "2026-12-02T10:00:02Z");
  EXPECT_EQ(r.candidate_path, "examples/softmax/fast.cpp");
  EXPECT_EQ(r.sha256_prefix, "0123456789ab");
  EXPECT_EQ(r.dtype, "f32");
  EXPECT_EQ(r.device, "cpu");
  EXPECT_EQ(r.status, "ok_faster");
  EXPECT_EQ(r.rule, "");
  ASSERT_TRUE(r.speedup_median && r.speedup_lo && r.speedup_hi);
  EXPECT_DOUBLE_EQ(*r.speedup_median, 1.2);
  EXPECT_DOUBLE_EQ(*r.speedup_lo, 1.1);
  EXPECT_DOUBLE_EQ(*r.speedup_hi, 1.3);

  EXPECT_EQ(s.history("layernorm", 10).size(), 1u);
  EXPECT_TRUE(s.history("rmsnorm", 10).empty());
}

TEST(store_test, missing_speedup_and_rule_are_stored_as_null) {
  temp_dir dir;
  kjudge::store s(dir.path() / "kjudge.db");
  json doc = make_result("softmax", "2026-12-02T10:00:00Z", "hack");
  doc["verdict"]["rule"] = "inputs_modified";
  doc["speedup"] = nullptr;
  s.add_evaluation(doc, "");
  auto h = s.history("softmax");
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].rule, "inputs_modified");
  EXPECT_FALSE(h[0].speedup_median.has_value());
  EXPECT_FALSE(h[0].speedup_lo.has_value());
  EXPECT_FALSE(h[0].speedup_hi.has_value());
}

TEST(store_test, refuses_a_database_from_a_newer_kjudge) {
  temp_dir dir;
  const fs::path db = dir.path() / "future.db";
  const int future = kjudge::store::latest_schema_version() + 5;
  {
    raw_db raw(db);
    raw.exec("PRAGMA user_version=" + std::to_string(future));
  }
  try {
    kjudge::store s(db);
    FAIL() << "opened a database with schema version " << future;
  } catch (const kjudge::usage_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(db.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("version " + std::to_string(future)), std::string::npos) << msg;
    EXPECT_NE(msg.find("version " + std::to_string(kjudge::store::latest_schema_version())), std::string::npos) << msg;
  }
  raw_db raw(db);
  EXPECT_EQ(raw.integer("PRAGMA user_version"), future);  // left untouched
}

TEST(store_test, refuses_a_file_that_is_not_a_database) {
  temp_dir dir;
  const fs::path db = dir.path() / "notes.txt";
  std::ofstream(db) << "this is not an SQLite database, just some text that is long enough\n";
  try {
    kjudge::store s(db);
    FAIL() << "opened a text file as a database";
  } catch (const kjudge::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find(db.string()), std::string::npos) << e.what();
  }
}

TEST(store_test, rejected_document_leaves_no_row) {
  temp_dir dir;
  const fs::path db = dir.path() / "kjudge.db";
  kjudge::store s(db);
  json no_problem = make_result("softmax", "2026-12-02T10:00:00Z");
  no_problem["problem"].erase("name");
  EXPECT_THROW(s.add_evaluation(no_problem, "src"), kjudge::usage_error);
  json no_status = make_result("softmax", "2026-12-02T10:00:00Z");
  no_status["verdict"]["status"] = nullptr;
  EXPECT_THROW(s.add_evaluation(no_status, "src"), kjudge::usage_error);
  json wrong_schema = make_result("softmax", "2026-12-02T10:00:00Z");
  wrong_schema["schema"] = "something.else/1";
  EXPECT_THROW(s.add_evaluation(wrong_schema, "src"), kjudge::usage_error);
  EXPECT_THROW(s.add_evaluation(json::array(), "src"), kjudge::usage_error);
  EXPECT_EQ(row_count(db), 0);
}

TEST(store_test, failing_insert_rolls_back_and_store_stays_usable) {
  temp_dir dir;
  const fs::path db = dir.path() / "kjudge.db";
  kjudge::store s(db);
  s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "");
  {
    // Make SQLite itself fail inside add_evaluation's transaction.
    raw_db raw(db);
    raw.exec(
        "CREATE TRIGGER fail_crash BEFORE INSERT ON evaluations WHEN NEW.status = 'crash' "
        "BEGIN SELECT RAISE(ABORT, 'injected failure'); END;");
  }
  try {
    s.add_evaluation(make_result("softmax", "2026-12-02T10:00:01Z", "crash"), "");
    FAIL() << "insert should have failed";
  } catch (const kjudge::internal_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("injected failure"), std::string::npos) << msg;
    EXPECT_NE(msg.find("sqlite_backend.cpp:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("sqlite3_step"), std::string::npos) << msg;
  }
  EXPECT_EQ(row_count(db), 1);
  // A transaction left open would make this BEGIN fail.
  EXPECT_GT(s.add_evaluation(make_result("softmax", "2026-12-02T10:00:02Z"), ""), 0);
  EXPECT_EQ(row_count(db), 2);
}

TEST(store_test, move_transfers_the_connection) {
  temp_dir dir;
  kjudge::store a(dir.path() / "kjudge.db");
  kjudge::store b(std::move(a));
  const auto id = b.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "");
  EXPECT_TRUE(b.get(id).has_value());
}

TEST(store_test, created_at_is_filled_when_absent) {
  temp_dir dir;
  kjudge::store s(dir.path() / "kjudge.db");
  json doc = make_result("softmax", "x");
  doc.erase("created_at");
  s.add_evaluation(doc, "");
  auto h = s.history("softmax");
  ASSERT_EQ(h.size(), 1u);
  ASSERT_EQ(h[0].created_at.size(), 20u) << h[0].created_at;  // 2026-12-02T10:00:00Z
  EXPECT_EQ(h[0].created_at[10], 'T');
  EXPECT_EQ(h[0].created_at.back(), 'Z');
}

namespace {
// Sets or unsets an environment variable for one scope.
class scoped_env {
 public:
  scoped_env(const char* name, const char* value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    if (value != nullptr)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~scoped_env() {
    if (m_old)
      setenv(m_name.c_str(), m_old->c_str(), 1);
    else
      unsetenv(m_name.c_str());
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;
  scoped_env(scoped_env&&) = delete;
  scoped_env& operator=(scoped_env&&) = delete;

 private:
  std::string m_name;
  std::optional<std::string> m_old;
};
}  // namespace

TEST(store_test, default_db_path_follows_kjudge_db_then_xdg_then_home) {
  scoped_env home("HOME", "/home/judge");
  {
    scoped_env db("KJUDGE_DB", "/data/results.db");
    scoped_env xdg("XDG_DATA_HOME", "/xdg");
    EXPECT_EQ(kjudge::default_db_path(), fs::path("/data/results.db"));
  }
  {
    scoped_env db("KJUDGE_DB", "");
    scoped_env xdg("XDG_DATA_HOME", "/xdg");
    EXPECT_EQ(kjudge::default_db_path(), fs::path("/xdg/kjudge/kjudge.db"));
  }
  {
    scoped_env db("KJUDGE_DB", nullptr);
    scoped_env xdg("XDG_DATA_HOME", "relative/dir");  // the XDG spec says: ignore
    EXPECT_EQ(kjudge::default_db_path(), fs::path("/home/judge/.local/share/kjudge/kjudge.db"));
  }
  {
    scoped_env db("KJUDGE_DB", nullptr);
    scoped_env xdg("XDG_DATA_HOME", nullptr);
    EXPECT_EQ(kjudge::default_db_path(), fs::path("/home/judge/.local/share/kjudge/kjudge.db"));
  }
}

TEST(store_test, dedup_key_is_stored_once_and_returns_the_existing_row) {
  temp_dir dir;
  const fs::path db = dir.path() / "kjudge.db";
  kjudge::store s(db);
  const auto first = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "a", "batch1/softmax/c0.cpp");
  // A different document under the same key: the first one stays, nothing is written.
  const auto again =
      s.add_evaluation(make_result("softmax", "2026-12-02T11:00:00Z", "crash"), "b", "batch1/softmax/c0.cpp");
  EXPECT_EQ(again, first);
  EXPECT_EQ(row_count(db), 1);
  EXPECT_EQ(s.get(first)->at("verdict").at("status"), "ok_faster");
  EXPECT_EQ(s.get_source(first).value_or(""), "a");
  // No key: every insert is a new row, as before keys existed.
  const auto k1 = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "a");
  const auto k2 = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "a");
  EXPECT_NE(k1, k2);
  EXPECT_NE(k1, first);
  EXPECT_EQ(row_count(db), 3);
  raw_db raw(db);
  EXPECT_EQ(raw.integer("SELECT count(*) FROM evaluations WHERE dedup_key IS NULL"), 2);
}

TEST(store_test, keys_with_prefix_lists_matching_keys_sorted) {
  temp_dir dir;
  kjudge::store s(dir.path() / "kjudge.db");
  for (const char* key : {"b2/x/1.cpp", "b1/y/2.cpp", "b1/x/1.cpp", "b10/x/1.cpp", "b1%/z.cpp"})
    s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "", key);
  s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "");
  EXPECT_EQ(s.keys_with_prefix("b1/"), (std::vector<std::string>{"b1/x/1.cpp", "b1/y/2.cpp"}));
  // LIKE wildcards in the prefix are plain characters.
  EXPECT_EQ(s.keys_with_prefix("b1%"), (std::vector<std::string>{"b1%/z.cpp"}));
  EXPECT_EQ(s.keys_with_prefix("b1").size(), 4u);
  EXPECT_EQ(s.keys_with_prefix("").size(), 5u);
  EXPECT_TRUE(s.keys_with_prefix("c").empty());
}

TEST(store_test, migrates_a_version_2_database_keeping_rows_without_keys) {
  temp_dir dir;
  const fs::path db = dir.path() / "v2.db";
  {
    kjudge::store s(db);
    s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "old");
    // Undo migration 3 as a kjudge of schema 2 would have left the file.
    raw_db raw(db);
    raw.exec("DROP INDEX evaluations_dedup_key; ALTER TABLE evaluations DROP COLUMN dedup_key; PRAGMA user_version=2;");
  }
  kjudge::store s(db);
  EXPECT_EQ(s.schema_version(), kjudge::store::latest_schema_version());
  EXPECT_EQ(row_count(db), 1);
  EXPECT_TRUE(s.keys_with_prefix("").empty());
  const auto id = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:01Z"), "", "k");
  EXPECT_EQ(s.add_evaluation(make_result("softmax", "2026-12-02T10:00:01Z"), "", "k"), id);
  EXPECT_EQ(row_count(db), 2);
}

TEST(store_test, concurrent_processes_store_each_key_once) {
  temp_dir dir;
  const fs::path db = dir.path() / "kjudge.db";
  { kjudge::store init(db); }
  constexpr int k_procs = 4;
  constexpr int k_keys = 40;
  std::vector<pid_t> children;
  for (int p = 0; p < k_procs; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 0;
      try {
        kjudge::store s(db, 30000);
        // Half the writers walk the keys backwards so that they meet in the middle.
        for (int i = 0; i < k_keys; ++i) {
          const int k = p % 2 == 0 ? i : k_keys - 1 - i;
          const std::string key = "race/" + std::to_string(k);
          const auto id = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), key, key);
          if (s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), key, key) != id) rc = 2;
        }
      } catch (...) {
        rc = 1;
      }
      _exit(rc);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer status " << status;
  }
  EXPECT_EQ(row_count(db), k_keys);
  raw_db raw(db);
  EXPECT_EQ(raw.integer("SELECT count(DISTINCT dedup_key) FROM evaluations"), k_keys);
  // Each row holds its own key as source: no writer's row was attributed to another key.
  EXPECT_EQ(raw.integer("SELECT count(*) FROM evaluations WHERE candidate_source = dedup_key"), k_keys);
}
