// Databases for the tests that need PostgreSQL. ctest starts one server per build with
// scripts/local-postgres.sh (the fixture `postgres` in tests/CMakeLists.txt) and passes its
// directory in KJUDGE_TEST_PG_DIR; each test takes a database of its own on that server.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <pqxx/pqxx>
#include <stdexcept>
#include <string>

namespace kjudge::testing {

// Runs `command` and returns its stdout, throwing if it fails.
inline std::string command_output(const std::string& command) {
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) throw std::runtime_error("popen failed: " + command);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
  const int status = pclose(p);
  if (status != 0) throw std::runtime_error(command + " failed with status " + std::to_string(status));
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// The URL of the server the fixture started (database "kjudge"). Fails the test, naming what is
// missing, when there is none: a test that needs PostgreSQL never passes without it.
inline std::string pg_base_url() {
  const char* dir = std::getenv("KJUDGE_TEST_PG_DIR");
  if (dir == nullptr || *dir == '\0')
    throw std::runtime_error(
        "KJUDGE_TEST_PG_DIR is not set: run these tests through ctest, whose fixture `postgres` starts a "
        "server with scripts/local-postgres.sh (needs `apt-get install postgresql`)");
  return command_output(std::string(KJUDGE_SOURCE_DIR) + "/scripts/local-postgres.sh url '" + dir + "'");
}

// A new empty database on the fixture's server; dropped with its owner.
class pg_database {
 public:
  pg_database() {
    static std::atomic<int> counter{0};
    m_name = "t" + std::to_string(getpid()) + "_" + std::to_string(counter++) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name();
    // Unquoted SQL names fold to lower case; the URL must name the same database.
    for (auto& c : m_name)
      c = std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
                                                      : '_';
    m_name = m_name.substr(0, 60);
    m_base = pg_base_url();
    pqxx::connection c(m_base);
    pqxx::nontransaction tx(c);
    tx.exec("DROP DATABASE IF EXISTS " + m_name);
    tx.exec("CREATE DATABASE " + m_name);
    m_url = m_base;
    const auto at = m_url.find("/kjudge?");
    if (at == std::string::npos) throw std::runtime_error("unexpected fixture URL " + m_base);
    m_url.replace(at, 8, "/" + m_name + "?");
  }
  ~pg_database() {
    try {
      pqxx::connection c(m_base);
      pqxx::nontransaction tx(c);
      tx.exec("DROP DATABASE IF EXISTS " + m_name + " WITH (FORCE)");
    } catch (...) {  // the server may be gone already; the fixture's cleanup removes it all
    }
  }
  pg_database(const pg_database&) = delete;
  pg_database& operator=(const pg_database&) = delete;
  pg_database(pg_database&&) = delete;
  pg_database& operator=(pg_database&&) = delete;

  const std::string& url() const { return m_url; }
  const std::string& name() const { return m_name; }

  // One value of a query (tests inspect the tables behind the store's back).
  std::string scalar(const std::string& sql) const {
    pqxx::connection c(m_url);
    pqxx::nontransaction tx(c);
    const auto r = tx.exec(sql);
    if (r.empty() || r[0][0].is_null()) return {};
    return r[0][0].as<std::string>();
  }
  void exec(const std::string& sql) const {
    pqxx::connection c(m_url);
    pqxx::nontransaction tx(c);
    tx.exec(sql);
  }

 private:
  std::string m_base;
  std::string m_url;
  std::string m_name;
};

}  // namespace kjudge::testing
