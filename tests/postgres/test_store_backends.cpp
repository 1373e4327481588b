// The store's contract on both engines (SQLite file, PostgreSQL server): the same calls give the
// same answers. Engine-specific behaviour (WAL mode, PRAGMA user_version) is in
// tests/unit/test_store.cpp.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "engine_test_util.hpp"
#include "store/store.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json make_result(const std::string& problem, const std::string& created_at, const std::string& status = "ok_faster",
                 double speedup = 1.5) {
  return {
      {"schema", "kjudge.result/1"},
      {"created_at", created_at},
      {"problem", {{"name", problem}, {"dtype", "f32"}, {"device", "cpu"}, {"spec_sha256", "feedbeef0123456789"}}},
      {"candidate", {{"path", "examples/" + problem + "/fast.cpp"}, {"sha256", "0123456789abcdef0123"}}},
      {"device", "cpu"},
      {"verdict", {{"status", status}, {"rule", nullptr}, {"reasons", json::array()}}},
      {"speedup", {{"median", speedup}, {"ci95", {speedup - 0.1, speedup + 0.1}}}},
      {"env", {{"host", "test-host"}}},
  };
}

class store_backends : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { m_db = kjudge::testing::make_test_db(GetParam()); }
  const kjudge::testing::test_db& db() const { return *m_db; }
  long long rows() const { return m_db->count("SELECT count(*) FROM evaluations"); }

 private:
  std::unique_ptr<kjudge::testing::test_db> m_db;
};

}  // namespace

TEST_P(store_backends, creates_the_schema_at_the_latest_version_and_reopens) {
  std::int64_t id = 0;
  {
    kjudge::store s(db().where());
    EXPECT_EQ(s.schema_version(), kjudge::store::latest_schema_version());
    id = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "int main() {}");
  }
  kjudge::store s(db().where());
  EXPECT_EQ(s.schema_version(), kjudge::store::latest_schema_version());
  EXPECT_EQ(s.get(id), make_result("softmax", "2026-12-02T10:00:00Z"));
  EXPECT_EQ(s.get_source(id).value_or("?"), "int main() {}");
  EXPECT_FALSE(s.get(id + 1000).has_value());
  EXPECT_FALSE(s.get_source(id + 1000).has_value());
  EXPECT_EQ(rows(), 1);
}

TEST_P(store_backends, history_is_newest_first_limited_and_per_problem) {
  kjudge::store s(db().where());
  const auto id_b = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:02Z", "ok_faster", 1.2), "");
  const auto id_a = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:01Z", "wrong_result", 0.9), "");
  const auto id_d = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:04Z", "ok_not_faster", 1.0), "");
  s.add_evaluation(make_result("layernorm", "2026-12-02T10:00:09Z"), "");
  // Same timestamp as id_d: the later insertion counts as newer.
  const auto id_e = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:04Z", "hack", 3.0), "");
  const auto all = s.history("softmax", 0);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].id, id_e);
  EXPECT_EQ(all[1].id, id_d);
  EXPECT_EQ(all[2].id, id_b);
  EXPECT_EQ(all[3].id, id_a);
  ASSERT_EQ(s.history("softmax", 2).size(), 2u);
  const auto& r = all[2];
  EXPECT_EQ(r.created_at, "2026-12-02T10:00:02Z");
  EXPECT_EQ(r.candidate_path, "examples/softmax/fast.cpp");
  EXPECT_EQ(r.sha256_prefix, "0123456789ab");
  EXPECT_EQ(r.dtype, "f32");
  EXPECT_EQ(r.device, "cpu");
  EXPECT_EQ(r.status, "ok_faster");
  EXPECT_EQ(r.rule, "");
  EXPECT_EQ(r.spec_sha256_prefix, "feedbeef0123");
  ASSERT_TRUE(r.speedup_median && r.speedup_lo && r.speedup_hi);
  EXPECT_DOUBLE_EQ(*r.speedup_median, 1.2);
  EXPECT_DOUBLE_EQ(*r.speedup_lo, 1.1);
  EXPECT_DOUBLE_EQ(*r.speedup_hi, 1.3);
  EXPECT_TRUE(s.history("rmsnorm").empty());
}

TEST_P(store_backends, missing_values_are_null_and_odd_bytes_survive) {
  kjudge::store s(db().where());
  json doc = make_result("softmax", "2026-12-02T10:00:00Z", "hack");
  doc["verdict"]["rule"] = "inputs_modified";
  doc["speedup"] = nullptr;
  // A NUL in the document (stored as \u0000), which PostgreSQL refuses to cast to json.
  doc["verdict"]["reasons"] = json::array({std::string("output held \0 bytes", 19)});
  // A source file is bytes: NUL and a byte that is not UTF-8 must come back unchanged.
  const std::string source("a\0b\xff\xfe z", 7);
  const auto id = s.add_evaluation(doc, source);
  const auto h = s.history("softmax");
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].rule, "inputs_modified");
  EXPECT_EQ(h[0].spec_sha256_prefix, "feedbeef0123");
  EXPECT_FALSE(h[0].speedup_median.has_value());
  EXPECT_FALSE(h[0].speedup_lo.has_value());
  EXPECT_EQ(s.get_source(id).value_or(""), source);
}

TEST_P(store_backends, rejected_document_leaves_no_row) {
  kjudge::store s(db().where());
  json no_status = make_result("softmax", "2026-12-02T10:00:00Z");
  no_status["verdict"]["status"] = nullptr;
  EXPECT_THROW(s.add_evaluation(no_status, "src"), kjudge::usage_error);
  EXPECT_THROW(s.add_evaluation(json::array(), "src"), kjudge::usage_error);
  EXPECT_EQ(rows(), 0);
}

TEST_P(store_backends, dedup_key_is_stored_once) {
  kjudge::store s(db().where());
  const auto first = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "a", "b1/softmax/c0.cpp");
  EXPECT_EQ(s.add_evaluation(make_result("softmax", "2026-12-02T11:00:00Z", "crash"), "b", "b1/softmax/c0.cpp"), first);
  EXPECT_EQ(s.get(first)->at("verdict").at("status"), "ok_faster");
  const auto k1 = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "a");
  const auto k2 = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "a");
  EXPECT_NE(k1, k2);
  EXPECT_EQ(rows(), 3);
  EXPECT_EQ(db().count("SELECT count(*) FROM evaluations WHERE dedup_key IS NULL"), 2);
}

TEST_P(store_backends, keys_with_prefix_lists_matching_keys_sorted_bytewise) {
  kjudge::store s(db().where());
  for (const char* key : {"b2/x/1.cpp", "b1/y/2.cpp", "b1/x/1.cpp", "b1/X/1.cpp", "b10/x/1.cpp", "b1%/z.cpp"})
    s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "", key);
  s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "");
  EXPECT_EQ(s.keys_with_prefix("b1/"), (std::vector<std::string>{"b1/X/1.cpp", "b1/x/1.cpp", "b1/y/2.cpp"}));
  EXPECT_EQ(s.keys_with_prefix("b1%"), (std::vector<std::string>{"b1%/z.cpp"}));
  EXPECT_EQ(s.keys_with_prefix("b1").size(), 5u);
  EXPECT_EQ(s.keys_with_prefix("").size(), 6u);
  EXPECT_TRUE(s.keys_with_prefix("c").empty());
}

TEST_P(store_backends, many_processes_store_each_key_once) {
  { kjudge::store init(db().where()); }
  constexpr int k_procs = 8;
  constexpr int k_keys = 30;
  std::vector<pid_t> children;
  for (int p = 0; p < k_procs; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 0;
      try {
        kjudge::store s(db().where(), 60000);
        for (int i = 0; i < k_keys; ++i) {
          const int k = p % 2 == 0 ? i : k_keys - 1 - i;  // writers meet in the middle
          const std::string key = "race/" + std::to_string(k);
          const auto id = s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), key, key);
          if (s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), key, key) != id) rc = 2;
          s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "no key");
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d: %s\n", p, e.what());
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
  EXPECT_EQ(db().count("SELECT count(*) FROM evaluations WHERE dedup_key IS NOT NULL"), k_keys);
  EXPECT_EQ(db().count("SELECT count(DISTINCT dedup_key) FROM evaluations"), k_keys);
  EXPECT_EQ(db().count("SELECT count(*) FROM evaluations WHERE dedup_key IS NULL"), k_procs * k_keys);
  kjudge::store s(db().where());
  EXPECT_EQ(s.keys_with_prefix("race/").size(), static_cast<std::size_t>(k_keys));
}

TEST_P(store_backends, processes_opening_a_new_database_at_once_migrate_it_once) {
  constexpr int k_procs = 8;
  std::vector<pid_t> children;
  for (int p = 0; p < k_procs; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 0;
      try {
        kjudge::store s(db().where(), 60000);
        if (s.schema_version() != kjudge::store::latest_schema_version()) rc = 2;
        s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "", "open/" + std::to_string(p));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "opener %d: %s\n", p, e.what());
        rc = 1;
      }
      _exit(rc);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "opener status " << status;
  }
  EXPECT_EQ(rows(), k_procs);
}

TEST_P(store_backends, add_row_copies_rows_and_recognises_repeats) {
  kjudge::store src(db().where());
  src.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z"), "keyed", "k/1");
  src.add_evaluation(make_result("softmax", "2026-12-02T10:00:01Z"), "keyless");
  std::vector<kjudge::stored_row> read;
  src.for_each_row([&](const kjudge::stored_row& r) { read.push_back(r); });
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].dedup_key, "k/1");
  EXPECT_EQ(read[1].dedup_key, "");
  EXPECT_EQ(read[1].candidate_source, "keyless");
  // Both are already here: one by key, one by (sha256, created_at, problem, dtype, device).
  for (const auto& r : read) EXPECT_FALSE(src.add_row(r).inserted);
  kjudge::stored_row other = read[1];
  other.created_at = "2026-12-02T10:00:02Z";
  EXPECT_TRUE(src.add_row(other).inserted);
  EXPECT_EQ(rows(), 3);
}

INSTANTIATE_TEST_SUITE_P(engines, store_backends, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

TEST(postgres_store, refuses_a_schema_from_a_newer_kjudge) {
  kjudge::testing::pg_database db;
  { kjudge::store s(db.url()); }
  const int future = kjudge::store::latest_schema_version() + 5;
  db.exec("UPDATE schema_version SET version = " + std::to_string(future));
  try {
    kjudge::store s(db.url());
    FAIL() << "opened a database with schema version " << future;
  } catch (const kjudge::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("version " + std::to_string(future)), std::string::npos) << e.what();
  }
  EXPECT_EQ(db.scalar("SELECT version FROM schema_version"), std::to_string(future));
}

TEST(postgres_store, unreachable_server_names_the_url_without_its_password) {
  const std::string url = "postgresql://judge:s3cret@localhost:1/nowhere?connect_timeout=5";
  try {
    kjudge::store s(url);
    FAIL() << "connected to " << url;
  } catch (const kjudge::usage_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("postgresql://judge:***@localhost:1/nowhere"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("s3cret"), std::string::npos) << msg;
  }
  EXPECT_EQ(kjudge::store::display_name("postgres:///db?host=/tmp/x&password=pw&user=u"),
            "postgres:///db?host=/tmp/x&password=***&user=u");
  EXPECT_EQ(kjudge::store::display_name("/data/kjudge.db"), "/data/kjudge.db");
  EXPECT_TRUE(kjudge::store::is_postgres_url("postgres://h/db"));
  EXPECT_FALSE(kjudge::store::is_postgres_url("postgresql.db"));
}
