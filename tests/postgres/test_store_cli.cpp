// The CLI with a PostgreSQL store: `kjudge eval` then `kjudge history` with KJUDGE_DB a URL, and
// `kjudge store merge` of SQLite stores into SQLite and into PostgreSQL, merged twice.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../integration/cli_test_util.hpp"
#include "pg_test_util.hpp"
#include "store/store.hpp"

namespace fs = std::filesystem;
namespace kt = kjudge::test;
using kjudge::test::candidate;
using kjudge::test::test_dir;
using nlohmann::json;

namespace {

json make_result(const std::string& problem, const std::string& created_at, const std::string& sha) {
  return {
      {"schema", "kjudge.result/1"},
      {"created_at", created_at},
      {"problem", {{"name", problem}, {"dtype", "f32"}, {"device", "cpu"}}},
      {"candidate", {{"path", "c.cpp"}, {"sha256", sha}}},
      {"device", "cpu"},
      {"verdict", {{"status", "ok_faster"}, {"rule", nullptr}}},
  };
}

// A per-task store as a batch task leaves it: `n` keyed rows of `task` and one keyless row.
std::string task_store(const std::string& name, const std::string& task, int n) {
  const auto path = (test_dir() / name).string();
  fs::remove(path);
  kjudge::store s(path);
  for (int i = 0; i < n; ++i)
    s.add_evaluation(make_result("softmax", "2026-12-02T10:00:0" + std::to_string(i) + "Z", task + std::to_string(i)),
                     "src", "batch/" + task + "/" + std::to_string(i));
  s.add_evaluation(make_result("softmax", "2026-12-02T10:00:00Z", task + "-keyless"), "src");
  return path;
}

std::size_t history_rows(const std::string& where) {
  kjudge::store s(where);
  return s.history("softmax", 0).size();
}

}  // namespace

TEST(PostgresCli, EvalStoresInPostgresAndHistoryShowsIt) {
  kjudge::testing::pg_database db;
  const std::map<std::string, std::string> env{{"KJUDGE_DB", db.url()}};
  const auto e = kt::kjudge({"eval", "softmax", candidate("wrong_softmax_off_by_scale.cpp"), "--no-timing"}, 300, env);
  EXPECT_EQ(e.r.exit_status, 1) << e.r.output;
  const auto h = kt::kjudge({"history", "softmax"}, 60, env);
  EXPECT_EQ(h.r.exit_status, 0) << h.r.output;
  EXPECT_NE(h.r.output.find("wrong_result"), std::string::npos) << h.r.output;
  EXPECT_NE(h.r.output.find("wrong_softmax_off_by_scale.cpp"), std::string::npos) << h.r.output;
  EXPECT_EQ(db.scalar("SELECT count(*) FROM evaluations WHERE status = 'wrong_result'"), "1");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM evaluations WHERE position('kj_run' in convert_from(candidate_source, "
                      "'UTF8')) > 0"),
            "1");
}

TEST(PostgresCli, UnreachableServerIsAUsageErrorWithoutThePassword) {
  const std::map<std::string, std::string> env{
      {"KJUDGE_DB", "postgresql://judge:hunter2@127.0.0.1:1/kjudge?connect_timeout=5"}};
  const auto h = kt::kjudge({"history", "softmax"}, 60, env);
  EXPECT_EQ(h.r.exit_status, 2) << h.r.output;
  EXPECT_NE(h.r.output.find("postgresql://judge:***@127.0.0.1:1/kjudge"), std::string::npos) << h.r.output;
  EXPECT_EQ(h.r.output.find("hunter2"), std::string::npos) << h.r.output;
}

TEST(StoreMerge, SqliteIntoSqliteTwiceAddsNothingTheSecondTime) {
  const auto a = task_store("merge-a.db", "a", 3);
  const auto b = task_store("merge-b.db", "b", 2);
  const auto out = (test_dir() / "merged.db").string();
  fs::remove(out);
  const auto first = kt::kjudge({"store", "merge", out, a, b});
  EXPECT_EQ(first.r.exit_status, 0) << first.r.output;
  EXPECT_NE(first.r.output.find("read 4, added 4, already present 0"), std::string::npos) << first.r.output;
  EXPECT_NE(first.r.output.find("read 3, added 3, already present 0"), std::string::npos) << first.r.output;
  EXPECT_NE(first.r.output.find("read 7, added 7, already present 0"), std::string::npos) << first.r.output;
  const auto again = kt::kjudge({"store", "merge", out, a, b});
  EXPECT_EQ(again.r.exit_status, 0) << again.r.output;
  EXPECT_NE(again.r.output.find("read 7, added 0, already present 7"), std::string::npos) << again.r.output;
  EXPECT_EQ(history_rows(out), 7u);
  kjudge::store s(out);
  EXPECT_EQ(s.keys_with_prefix("batch/a/").size(), 3u);
  EXPECT_EQ(s.keys_with_prefix("batch/").size(), 5u);
}

TEST(StoreMerge, SqliteIntoPostgresKeepsKeysSourcesAndDocuments) {
  kjudge::testing::pg_database db;
  const auto a = task_store("pmerge-a.db", "a", 3);
  const auto b = task_store("pmerge-b.db", "b", 3);
  const auto first = kt::kjudge({"store", "merge", db.url(), a, b});
  EXPECT_EQ(first.r.exit_status, 0) << first.r.output;
  EXPECT_NE(first.r.output.find("read 8, added 8, already present 0"), std::string::npos) << first.r.output;
  // A source merged again, alone or with the other: nothing new.
  const auto again = kt::kjudge({"store", "merge", db.url(), b, a});
  EXPECT_NE(again.r.output.find("read 8, added 0, already present 8"), std::string::npos) << again.r.output;
  EXPECT_EQ(history_rows(db.url()), 8u);
  kjudge::store pg(db.url());
  EXPECT_EQ(pg.keys_with_prefix("batch/b/"), (std::vector<std::string>{"batch/b/0", "batch/b/1", "batch/b/2"}));
  kjudge::store src(a);
  std::size_t compared = 0;
  src.for_each_row([&](const kjudge::stored_row& r) {
    if (r.dedup_key != "batch/a/1") return;
    const auto id = pg.add_row(r);
    EXPECT_FALSE(id.inserted);
    EXPECT_EQ(pg.get(id.id), json::parse(r.result_json));
    EXPECT_EQ(pg.get_source(id.id).value_or(""), "src");
    ++compared;
  });
  EXPECT_EQ(compared, 1u);
}

TEST(StoreMerge, MissingSourceIsRefusedAndCreatesNothing) {
  const auto out = (test_dir() / "merged-missing.db").string();
  const auto missing = (test_dir() / "no-such-task.db").string();
  const auto r = kt::kjudge({"store", "merge", out, missing});
  EXPECT_EQ(r.r.exit_status, 2) << r.r.output;
  EXPECT_NE(r.r.output.find("no-such-task.db: no such store file"), std::string::npos) << r.r.output;
  EXPECT_FALSE(fs::exists(missing));
}
