// One empty database of either store engine (an SQLite file in a temporary directory, a database
// of its own on the fixture's PostgreSQL server) for the tests run on both, and a way to count
// rows behind the store's back.
#pragma once

#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "pg_test_util.hpp"

namespace kjudge::testing {

class test_db {
 public:
  virtual ~test_db() = default;
  virtual std::string where() const = 0;
  // The first column of the first row of `sql`, an integer; -1 if the query fails in SQLite.
  virtual long long count(const std::string& sql) const = 0;
};

class sqlite_db final : public test_db {
 public:
  sqlite_db() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kjudge_backend_test.XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    m_dir = tmpl;
  }
  ~sqlite_db() override {
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
  }
  sqlite_db(const sqlite_db&) = delete;
  sqlite_db& operator=(const sqlite_db&) = delete;
  sqlite_db(sqlite_db&&) = delete;
  sqlite_db& operator=(sqlite_db&&) = delete;
  std::string where() const override { return (m_dir / "kjudge.db").string(); }
  long long count(const std::string& sql) const override {
    sqlite3* db = nullptr;
    sqlite3_open(where().c_str(), &db);
    sqlite3_stmt* s = nullptr;
    long long n = -1;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
      n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return n;
  }

 private:
  std::filesystem::path m_dir;
};

class postgres_db final : public test_db {
 public:
  std::string where() const override { return m_db.url(); }
  long long count(const std::string& sql) const override { return std::stoll(m_db.scalar(sql)); }

 private:
  pg_database m_db;
};

// "sqlite" or "postgres", as the suites' parameter names them.
inline std::unique_ptr<test_db> make_test_db(const std::string& engine) {
  if (engine == "sqlite") return std::make_unique<sqlite_db>();
  if (engine == "postgres") return std::make_unique<postgres_db>();
  throw std::invalid_argument("unknown store engine " + engine);
}

}  // namespace kjudge::testing
