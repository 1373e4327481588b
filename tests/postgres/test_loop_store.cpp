// The loop's rows (loop/loop_store.hpp) on both store engines: every write is an upsert keyed by
// the journal's ids, so a journal replayed after kill -9 rewrites the same rows with the later
// values; ensure_evaluation stores a proposal's result once; concurrent writers of one run leave
// one row per key. And `kjudge loop` against a postgresql:// store.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../integration/cli_test_util.hpp"
#include "core/error.hpp"
#include "engine_test_util.hpp"
#include "loop/loop_store.hpp"
#include "store/store.hpp"

namespace fs = std::filesystem;
using kjudge::loop::loop_store;
using nlohmann::json;

namespace {

constexpr const char* k_run = "run0001";

json run_config(const std::string& workdir, const std::string& db) {
  return {{"id", k_run},
          {"created_at", "2026-12-07T10:00:00Z"},
          {"problem_name", "softmax"},
          {"device", "cpu"},
          {"proposer", "autotune:t.cpp"},
          {"workdir", workdir},
          {"db", db},
          {"budget_iterations", 3}};
}

json iteration(int n, const std::string& status, double best_median) {
  return {{"iteration", n},
          {"request", {{"kind", "improve"}}},
          {"proposer_status", status},
          {"proposer_seconds", 1.25},
          {"n_proposals", 2},
          {"best",
           {{"id", "p0001-01"},
            {"median", best_median},
            {"ci95", {best_median - 0.5, best_median + 0.5}},
            {"time_s", 0.004}}},
          {"improved", true},
          {"beam", json::array({"p0001-01"})},
          {"elapsed_s", 12.5}};
}

json proposal(const std::string& state, const std::string& status) {
  return {{"id", "p0001-01"},
          {"iteration", 1},
          {"file", "a.cpp"},
          {"sha256", "abc123"},
          {"family", "tiled"},
          {"state", state},
          {"status", status},
          {"rule", nullptr},
          {"median", 1.75},
          {"lo", 1.5},
          {"hi", 2.0},
          {"time_s", 0.004},
          {"meta", {{"config", "TILE=4"}}}};
}

json family(int attempts, bool retired) {
  return {{"name", "tiled"},
          {"attempts", attempts},
          {"correct", attempts},
          {"rejected", 0},
          {"best", {{"id", "p0001-01"}, {"median", 1.75}}},
          {"in_beam", !retired},
          {"retired", retired},
          {"retired_reason", retired ? json("plateau") : json()},
          {"retired_at", retired ? 3 : 0}};
}

json result_doc(const std::string& proposal_id, const std::optional<std::string>& sha256) {
  json candidate{{"path", "a.cpp"}};
  if (sha256) candidate["sha256"] = *sha256;
  return {{"schema", "kjudge.result/1"},
          {"created_at", "2026-12-07T10:00:05Z"},
          {"problem", {{"name", "softmax"}, {"dtype", "f32"}, {"device", "cpu"}}},
          {"candidate", candidate},
          {"device", "cpu"},
          {"verdict", {{"status", "ok_faster"}, {"rule", nullptr}}},
          {"loop", {{"run", k_run}, {"proposal", proposal_id}}}};
}

class loop_store_engines : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { m_db = kjudge::testing::make_test_db(GetParam()); }
  const kjudge::testing::test_db& db() const { return *m_db; }
  long long count(const std::string& sql) const { return m_db->count(sql); }

 private:
  std::unique_ptr<kjudge::testing::test_db> m_db;
};

}  // namespace

TEST_P(loop_store_engines, replayed_upserts_leave_one_row_each_with_the_later_values) {
  loop_store s(db().where());
  const auto eval = s.ensure_evaluation(result_doc("p0001-01", "abc123"), "src", k_run, "p0001-01");
  for (int replay = 0; replay < 2; ++replay) {
    s.upsert_run(run_config("/w/first", "first.db"));
    s.upsert_iteration(k_run, iteration(1, "ok", 1.5));
    s.upsert_proposal(k_run, proposal("pending", "none"), std::nullopt);
    s.upsert_family(k_run, family(1, false));
  }
  for (int replay = 0; replay < 2; ++replay) {
    json later = run_config("/w/moved", "later.db");
    later["created_at"] = "2026-12-07T11:00:00Z";
    later["problem_name"] = "layernorm";
    s.upsert_run(later);
    s.upsert_iteration(k_run, iteration(1, "timeout", 2.5));
    s.upsert_proposal(k_run, proposal("judged", "ok_faster"), eval);
    s.upsert_family(k_run, family(3, true));
  }
  for (const char* table : {"loop_runs", "loop_iterations", "loop_proposals", "loop_families"})
    EXPECT_EQ(s.count_rows(table, k_run), 1) << table;
  EXPECT_EQ(count("SELECT count(*) FROM loop_runs"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM loop_iterations"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM loop_proposals"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM loop_families"), 1);
  // A run keeps its identity and takes the new configuration and workdir.
  EXPECT_EQ(count("SELECT count(*) FROM loop_runs WHERE created_at = '2026-12-07T10:00:00Z' AND problem = 'softmax' "
                  "AND workdir = '/w/moved' AND config_json LIKE '%later.db%' AND config_json NOT LIKE '%first.db%'"),
            1);
  EXPECT_EQ(count("SELECT count(*) FROM loop_iterations WHERE iteration = 1 AND proposer_status = 'timeout' AND "
                  "best_proposal = 'p0001-01' AND best_speedup = 2.5 AND best_lo = 2.0 AND best_hi = 3.0 AND "
                  "n_proposals = 2 AND improved = 1 AND proposer_seconds = 1.25 AND best_time_s = 0.004 AND "
                  "request_json LIKE '%improve%' AND beam_json LIKE '%p0001-01%' AND elapsed_s = 12.5"),
            1);
  EXPECT_EQ(count("SELECT count(*) FROM loop_proposals WHERE proposal_id = 'p0001-01' AND state = 'judged' AND "
                  "status = 'ok_faster' AND rule IS NULL AND evaluation_id = " +
                  std::to_string(eval) +
                  " AND speedup_median = 1.75 AND speedup_lo = 1.5 AND speedup_hi = 2.0 AND sha256 = 'abc123' AND "
                  "meta_json LIKE '%TILE=4%'"),
            1);
  EXPECT_EQ(count("SELECT count(*) FROM loop_families WHERE family = 'tiled' AND attempts = 3 AND retired = 1 AND "
                  "in_beam = 0 AND retired_reason = 'plateau' AND retired_at = 3 AND best_speedup = 1.75"),
            1);
  // Back to values that are NULL: the replay clears them rather than keeping the earlier ones.
  s.upsert_proposal(k_run, proposal("pending", "none"), std::nullopt);
  s.upsert_family(k_run, family(3, false));
  EXPECT_EQ(count("SELECT count(*) FROM loop_proposals WHERE evaluation_id IS NULL AND state = 'pending'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM loop_families WHERE retired_reason IS NULL AND retired = 0"), 1);
}

TEST_P(loop_store_engines, ensure_evaluation_stores_a_proposals_result_once) {
  loop_store s(db().where());
  const auto a = s.ensure_evaluation(result_doc("p0001-01", "abc123"), "src a", k_run, "p0001-01");
  EXPECT_EQ(s.ensure_evaluation(result_doc("p0001-01", "abc123"), "src a", k_run, "p0001-01"), a);
  // Another proposal of the same source, and the same proposal of another run, are other rows.
  const auto b = s.ensure_evaluation(result_doc("p0001-02", "abc123"), "src a", k_run, "p0001-02");
  EXPECT_NE(b, a);
  json other_run = result_doc("p0001-01", "abc123");
  other_run["loop"]["run"] = "run0002";
  const auto c = s.ensure_evaluation(other_run, "src a", "run0002", "p0001-01");
  EXPECT_NE(c, a);
  EXPECT_NE(c, b);
  // A document without a candidate hash is found again too.
  const auto d = s.ensure_evaluation(result_doc("p0001-03", std::nullopt), "src d", k_run, "p0001-03");
  EXPECT_EQ(s.ensure_evaluation(result_doc("p0001-03", std::nullopt), "src d", k_run, "p0001-03"), d);
  // A document holding NUL (a candidate's output may) is found again: PostgreSQL's json refuses
  // \u0000 in text.
  json with_nul = result_doc("p0001-04", "abc123");
  with_nul["log"] = std::string("out\0put", 7);
  const auto e = s.ensure_evaluation(with_nul, "src e", k_run, "p0001-04");
  EXPECT_EQ(s.ensure_evaluation(with_nul, "src e", k_run, "p0001-04"), e);
  EXPECT_EQ(s.ensure_evaluation(result_doc("p0001-01", "abc123"), "src a", k_run, "p0001-01"), a);
  EXPECT_EQ(count("SELECT count(*) FROM evaluations"), 5);
  kjudge::store st(db().where());
  EXPECT_EQ(st.get(a)->at("loop").at("proposal"), "p0001-01");
  EXPECT_EQ(st.get_source(d).value_or(""), "src d");
}

TEST_P(loop_store_engines, count_rows_counts_one_run_and_knows_its_tables) {
  loop_store s(db().where());
  for (const char* id : {"run-a", "run-b"}) {
    json c = run_config("/w", "x.db");
    c["id"] = id;
    s.upsert_run(c);
  }
  for (int i = 1; i <= 3; ++i) s.upsert_iteration("run-a", iteration(i, "ok", 1.0));
  s.upsert_iteration("run-b", iteration(1, "ok", 1.0));
  EXPECT_EQ(s.count_rows("loop_iterations", "run-a"), 3);
  EXPECT_EQ(s.count_rows("loop_iterations", "run-b"), 1);
  EXPECT_EQ(s.count_rows("loop_runs", "run-b"), 1);
  EXPECT_EQ(s.count_rows("loop_proposals", "run-a"), 0);
  EXPECT_EQ(s.count_rows("loop_runs", "run-c"), 0);
  EXPECT_THROW(s.count_rows("evaluations", "run-a"), kjudge::internal_error);
}

TEST_P(loop_store_engines, an_iteration_of_an_unknown_run_is_refused) {
  loop_store s(db().where());
  // The tables' foreign keys hold in both engines: rows never name a run that is not stored.
  EXPECT_THROW(s.upsert_iteration("no-such-run", iteration(1, "ok", 1.0)), kjudge::internal_error);
  EXPECT_EQ(count("SELECT count(*) FROM loop_iterations"), 0);
}

TEST_P(loop_store_engines, the_run_row_shows_the_store_url_without_its_password) {
  loop_store s(db().where());
  s.upsert_run(run_config("/w", "postgresql://judge:s3cret@db.example.org/kjudge"));
  EXPECT_EQ(count("SELECT count(*) FROM loop_runs WHERE config_json LIKE '%judge:***@db.example.org%'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM loop_runs WHERE config_json LIKE '%s3cret%'"), 0);
}

TEST_P(loop_store_engines, a_row_must_name_every_column_once) {
  kjudge::store s(db().where());
  using kjudge::loop_table;
  EXPECT_THROW(s.upsert_loop_row(loop_table::runs, {{"id", std::string("r")}, {"config_json", std::string("{}")}}),
               kjudge::internal_error);
  EXPECT_THROW(s.upsert_loop_row(loop_table::runs, {{"id", std::string("r")}, {"no_such_column", std::int64_t{1}}}),
               kjudge::internal_error);
  kjudge::loop_row twice{{"id", std::string("r")},
                         {"created_at", {}},
                         {"problem", {}},
                         {"device", {}},
                         {"proposer", {}},
                         {"workdir", {}},
                         {"config_json", std::string("{}")},
                         {"id", std::string("r2")}};
  EXPECT_THROW(s.upsert_loop_row(loop_table::runs, twice), kjudge::internal_error);
  twice.pop_back();
  s.upsert_loop_row(loop_table::runs, twice);
  EXPECT_EQ(count("SELECT count(*) FROM loop_runs"), 1);
}

TEST_P(loop_store_engines, concurrent_writers_of_one_run_leave_one_row_per_key) {
  { loop_store init(db().where()); }
  constexpr int k_procs = 6;
  constexpr int k_iterations = 20;
  std::vector<pid_t> children;
  for (int p = 0; p < k_procs; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 0;
      try {
        loop_store s(db().where());
        s.upsert_run(run_config("/w/" + std::to_string(p), "x.db"));
        for (int i = 1; i <= k_iterations; ++i) {
          const int n = p % 2 == 0 ? i : k_iterations + 1 - i;  // writers meet in the middle
          s.upsert_iteration(k_run, iteration(n, "ok", 1.0 + p));
          s.upsert_family(k_run, family(n, false));
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
  EXPECT_EQ(count("SELECT count(*) FROM loop_runs"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM loop_iterations"), k_iterations);
  EXPECT_EQ(count("SELECT count(DISTINCT iteration) FROM loop_iterations"), k_iterations);
  EXPECT_EQ(count("SELECT count(*) FROM loop_families"), 1);
}

INSTANTIATE_TEST_SUITE_P(engines, loop_store_engines, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

// One short run of the real CLI with KJUDGE_DB a PostgreSQL URL: a command proposer drops the
// example's fast softmax once, the loop judges it and its rows land in PostgreSQL; --resume of
// the finished run rewrites them from the journal without adding any.
TEST(PostgresLoop, LoopStoresItsRowsInPostgresAndResumeAddsNone) {
  kjudge::testing::pg_database db;
  const std::map<std::string, std::string> env{{"KJUDGE_DB", db.url()}};
  const fs::path dir = kjudge::test::test_dir() / "pg-loop";
  fs::remove_all(dir);
  const std::string fast = std::string(KJUDGE_SOURCE_DIR) + "/examples/softmax/fast.cpp";
  const std::vector<std::string> judging{
      "--hidden", "4", "--eval-budget", "0.3", "--min-rounds", "3", "--torch-baselines", "none", "-q"};
  std::vector<std::string> args{
      "loop",      "softmax",    "--proposer", "cp '" + fast + "' \"$KJUDGE_OUTPUT_DIR/fast.cpp\"",
      "--workdir", dir.string(), "--budget",   "1"};
  args.insert(args.end(), judging.begin(), judging.end());
  const auto r = kjudge::test::kjudge(args, 300, env);
  ASSERT_EQ(r.r.exit_status, 0) << r.r.output;
  const json config = json::parse(std::ifstream(dir / "loop.json"));
  const std::string run = config.at("id");
  EXPECT_EQ(config.at("db"), db.url());  // as given, not made a path
  auto rows = [&](const std::string& table, const std::string& key) {
    return db.scalar("SELECT count(*) FROM " + table + " WHERE " + key + " = '" + run + "'");
  };
  auto expect_rows = [&] {
    EXPECT_EQ(rows("loop_runs", "id"), "1");
    EXPECT_EQ(rows("loop_iterations", "run_id"), "1");
    EXPECT_EQ(rows("loop_proposals", "run_id"), "1");
    EXPECT_EQ(db.scalar("SELECT count(*) FROM loop_proposals p JOIN evaluations e ON e.id = p.evaluation_id WHERE "
                        "p.run_id = '" +
                        run + "' AND e.result_json::json #>> '{loop,run}' = '" + run +
                        "' AND e.candidate_sha256 = p.sha256 AND p.status = e.status"),
              "1");
    EXPECT_EQ(db.scalar("SELECT count(*) FROM evaluations"), "1");
  };
  expect_rows();
  EXPECT_EQ(db.scalar("SELECT problem FROM loop_runs"), "softmax");
  const auto again = kjudge::test::kjudge({"loop", "--resume", dir.string(), "-q"}, 300, env);
  EXPECT_EQ(again.r.exit_status, 0) << again.r.output;
  expect_rows();
  loop_store s(db.url());
  EXPECT_EQ(s.count_rows("loop_proposals", run), 1);
}
