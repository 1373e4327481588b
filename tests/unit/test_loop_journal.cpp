// The loop's journal and the state replayed from it (src/loop/journal.hpp, state.hpp), and the
// idempotent store rows (loop_store.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "loop/journal.hpp"
#include "loop/loop_store.hpp"
#include "loop/state.hpp"

namespace fs = std::filesystem;
namespace kl = kjudge::loop;
using json = nlohmann::json;

namespace {

fs::path temp_dir(const std::string& name) {
  const auto d = fs::temp_directory_path() / ("kjudge-loop-unit-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

json proposed(int it, std::vector<json> ps) {
  return json{{"event", "proposed"}, {"iteration", it}, {"proposer", {{"status", "ok"}}}, {"proposals", ps}};
}

json prop(const std::string& id, const std::string& sha, const std::string& state = "pending") {
  return json{{"id", id},
              {"sha256", sha},
              {"state", state},
              {"file", "proposals/" + id + ".cpp"},
              {"profile", {{"timing_budget_s", 2.0}, {"min_rounds", 10}}}};
}

json judged(const std::string& id, const std::string& status, double median, const std::string& family = "f") {
  json s{{"status", status}, {"family", family}, {"reasons", json::array()}, {"rule", nullptr}};
  if (status.rfind("ok_", 0) == 0) {
    s["median"] = median;
    s["lo"] = median * 0.9;
    s["hi"] = median * 1.1;
    s["time_s"] = 1e-3 / median;
  } else {
    s["median"] = nullptr;
  }
  return json{{"event", "judged"}, {"id", id}, {"summary", s}};
}

}  // namespace

TEST(LoopJournal, AppendsAndReadsEvents) {
  const auto d = temp_dir("append");
  {
    kl::journal j(d / "j.jsonl");
    j.append(json{{"event", "a"}, {"n", 1}});
    j.append(json{{"event", "b"}, {"text", "line\nbreak"}});
  }
  const auto ev = kl::read_journal(d / "j.jsonl", false);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[1]["text"], "line\nbreak");
  EXPECT_TRUE(kl::read_journal(d / "missing.jsonl", false).empty());
}

TEST(LoopJournal, ATornLastLineIsDroppedAndRepaired) {
  const auto d = temp_dir("torn");
  const auto f = d / "j.jsonl";
  {
    std::ofstream o(f);
    o << "{\"event\":\"a\"}\n{\"event\":\"b\"}\n{\"event\":\"c\",\"x\":[1,";
  }
  EXPECT_EQ(kl::read_journal(f, false).size(), 2u);
  EXPECT_NE(slurp(f).find("\"c\""), std::string::npos);  // reading alone changes nothing
  EXPECT_EQ(kl::read_journal(f, true).size(), 2u);
  EXPECT_EQ(slurp(f), "{\"event\":\"a\"}\n{\"event\":\"b\"}\n");
  kl::journal(f).append(json{{"event", "d"}});
  const auto ev = kl::read_journal(f, false);
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[2]["event"], "d");
  // A complete last line without its newline is a torn write too: the newline ends the event.
  {
    std::ofstream o(f, std::ios::app);
    o << "{\"event\":\"e\"}";
  }
  EXPECT_EQ(kl::read_journal(f, true).size(), 3u);
}

TEST(LoopJournal, AMalformedLineBeforeTheLastIsAnError) {
  const auto d = temp_dir("malformed");
  const auto f = d / "j.jsonl";
  {
    std::ofstream o(f);
    o << "{\"event\":\"a\"}\nnot json\n{\"event\":\"b\"}\n";
  }
  try {
    kl::read_journal(f, true);
    FAIL() << "expected usage_error";
  } catch (const kjudge::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("j.jsonl:2:"), std::string::npos) << e.what();
  }
}

TEST(LoopJournal, AtomicWriteReplacesWholeFiles) {
  const auto d = temp_dir("atomic");
  kl::write_file_atomic(d / "sub" / "f.txt", "one");
  kl::write_file_atomic(d / "sub" / "f.txt", "two");
  EXPECT_EQ(slurp(d / "sub" / "f.txt"), "two");
  int others = 0;
  for (const auto& e : fs::directory_iterator(d / "sub"))
    if (e.path().filename() != "f.txt") ++others;
  EXPECT_EQ(others, 0);  // no temporary left behind
}

TEST(LoopState, ReplaysProposalsJudgementsAndThePool) {
  kl::loop_state st;
  st.apply(json{{"event", "started"}, {"config", {{"id", "run1"}}}});
  st.apply(json{{"event", "iteration"}, {"iteration", 1}, {"request", {{"kind", "initial"}}}});
  st.apply(proposed(1, {prop("i0001-p00", "s0"), prop("i0001-p01", "s1"), prop("i0001-p02", "s2")}));
  EXPECT_EQ(st.find("i0001-p00")->state, "pending");
  st.apply(judged("i0001-p00", "ok_faster", 2.0));
  st.apply(judged("i0001-p01", "wrong_result", 0, "cheat"));
  st.apply(judged("i0001-p02", "ok_not_faster", 0.5));
  EXPECT_EQ(st.latest_rejected_id, "i0001-p01");
  EXPECT_EQ(st.latest_rejected_family, "cheat");
  auto pool = st.pool();
  ASSERT_EQ(pool.size(), 2u);  // the rejected one is not a candidate for the beam
  for (const auto& c : pool) EXPECT_NE(c.id, "i0001-p01");
  // The same source judged again later: its latest judgement stands for it.
  st.apply(json{{"event", "iteration"}, {"iteration", 2}, {"request", {{"kind", "improve"}}}});
  json again = prop("i0002-p00", "s0");
  again["profile"]["timing_budget_s"] = 4.0;
  json dup = prop("i0002-p01", "s2", "duplicate");
  dup["duplicate_of"] = "i0001-p02";
  json cheat_again = prop("i0002-p02", "s1");
  st.apply(proposed(2, {again, dup, cheat_again}));
  st.apply(judged("i0002-p00", "ok_faster", 2.5));
  st.apply(judged("i0002-p02", "ok_faster", 99.0, "cheat"));  // passed once, failed once: still out
  pool = st.pool();
  ASSERT_EQ(pool.size(), 2u);
  for (const auto& c : pool) {
    if (c.sha256 == "s0") EXPECT_EQ(c.id, "i0002-p00");
    EXPECT_NE(c.sha256, "s1");
  }
  // A duplicate carries the judgement of the proposal it repeats.
  const auto* s = st.effective_summary(*st.find("i0002-p01"));
  ASSERT_NE(s, nullptr);
  EXPECT_EQ((*s)["median"], 0.5);
  EXPECT_EQ(st.judged_key.count("s0|4.000s/10r"), 1u);
}

TEST(LoopState, JudgingTwiceOrUnknownProposalsIsRefused) {
  kl::loop_state st;
  st.apply(json{{"event", "iteration"}, {"iteration", 1}, {"request", {{"kind", "initial"}}}});
  st.apply(proposed(1, {prop("i0001-p00", "s0")}));
  st.apply(judged("i0001-p00", "ok_faster", 2.0));
  EXPECT_THROW(st.apply(judged("i0001-p00", "ok_faster", 2.0)), kjudge::usage_error);
  EXPECT_THROW(st.apply(judged("nope", "ok_faster", 2.0)), kjudge::usage_error);
  EXPECT_THROW(st.apply(proposed(1, {prop("i0001-p00", "s9")})), kjudge::usage_error);
  EXPECT_THROW(st.apply(proposed(7, {})), kjudge::usage_error);
  EXPECT_THROW(st.apply(json{{"event", "bogus"}}), kjudge::usage_error);
}

TEST(LoopState, BeamEventsRestoreBeamFamiliesAndPlateau) {
  kl::loop_state st;
  st.apply(json{{"event", "iteration"}, {"iteration", 1}, {"request", {{"kind", "new_family"}}}});
  EXPECT_EQ(st.plateau.last_new_family_request, 1);
  kl::family_record f;
  f.name = "x";
  f.attempts = 3;
  f.retired = true;
  f.retired_reason = "why";
  kl::beam_member m;
  m.c.id = "i0001-p00";
  m.c.family = "y";
  m.c.median = 2;
  m.rank = 1;
  st.apply(json{{"event", "beam"},
                {"iteration", 1},
                {"beam", {kl::member_to_json(m)}},
                {"families", {kl::family_to_json(f)}},
                {"best", kl::to_json(m.c)},
                {"plateau", {{"last_improvement", 1}, {"last_new_family_request", 1}}},
                {"accept", kl::to_json(m.c)},
                {"elapsed_s", 12.5}});
  EXPECT_EQ(st.finished_iterations, 1);
  ASSERT_EQ(st.beam.size(), 1u);
  EXPECT_EQ(st.beam[0].c.id, "i0001-p00");
  EXPECT_TRUE(st.families["x"].retired);
  EXPECT_EQ(st.families["x"].retired_reason, "why");
  EXPECT_EQ(st.best->id, "i0001-p00");
  EXPECT_EQ(st.accepts.size(), 1u);
  EXPECT_DOUBLE_EQ(st.elapsed_s, 12.5);
  st.apply(json{{"event", "stopped"}, {"reason", "budget"}});
  EXPECT_EQ(st.stop_reason, "budget");
  st.apply(json{{"event", "resumed"}, {"overrides", {{"budget_iterations", 9}}}});
  EXPECT_TRUE(st.stop_reason.empty());
  EXPECT_EQ(st.config["budget_iterations"], 9);
}

TEST(LoopState, SummarizesAResultDocument) {
  const json r{
      {"schema", "kjudge.result/1"},
      {"candidate", {{"info", "family=tiled;notes=16x16"}}},
      {"verdict", {{"status", "ok_faster"}, {"rule", nullptr}, {"reasons", {"a", "b", "c", "d"}}}},
      {"speedup", {{"median", 2.0}, {"ci95", {1.8, 2.2}}, {"baseline", "per-case strongest"}}},
      {"timing",
       {{"cases",
         {{{"id", "bench-0"}, {"candidate", {{"median_s", 1e-3}}}, {"achieved", {{"fraction_of_ceiling", 0.25}}}},
          {{"id", "bench-1"},
           {"candidate", {{"median_s", 4e-3}}},
           {"achieved", {{"fraction_of_ceiling", nullptr}}}}}}}},
      {"memory", {{"candidate_peak_bytes", 4096}}}};
  const json s = kl::summarize_result(r);
  EXPECT_EQ(s["family"], "tiled");
  EXPECT_EQ(s["notes"], "16x16");
  EXPECT_EQ(s["reasons"].size(), 3u);
  EXPECT_NEAR(s["time_s"].get<double>(), 2e-3, 1e-12);  // geometric mean of 1 ms and 4 ms
  EXPECT_NEAR(s["fraction_of_speed_of_light"].get<double>(), 0.25, 1e-12);
  EXPECT_EQ(s["peak_memory_bytes"], 4096);
  EXPECT_TRUE(s["ptxas"].is_null());
  const json rejected{{"verdict", {{"status", "wrong_result"}, {"evidence", {{"case", {{"id", "hidden-3"}}}}}}},
                      {"candidate", {{"info", nullptr}}}};
  const json rs = kl::summarize_result(rejected);
  EXPECT_EQ(rs["failing_case"]["id"], "hidden-3");
  EXPECT_EQ(rs["family"], "unknown");
  EXPECT_TRUE(rs["median"].is_null());
}

TEST(LoopStore, RowsAreUpsertedAndEvaluationsStoredOnce) {
  const auto d = temp_dir("store");
  kl::loop_store db(d / "k.db");
  const json cfg{{"id", "run7"}, {"problem_name", "softmax"}, {"device", "cpu"}, {"proposer", "x"}, {"workdir", "/w"}};
  db.upsert_run(cfg);
  db.upsert_run(cfg);
  EXPECT_EQ(db.count_rows("loop_runs", "run7"), 1);
  const json row{{"id", "i0001-p00"}, {"iteration", 1}, {"state", "judged"}, {"status", "ok_faster"}, {"median", 2.0}};
  const json result{{"schema", "kjudge.result/1"},
                    {"problem", {{"name", "softmax"}}},
                    {"candidate", {{"sha256", "abc"}}},
                    {"verdict", {{"status", "ok_faster"}}},
                    {"loop", {{"run", "run7"}, {"proposal", "i0001-p00"}}}};
  const auto id1 = db.ensure_evaluation(result, "src", "run7", "i0001-p00");
  const auto id2 = db.ensure_evaluation(result, "src", "run7", "i0001-p00");
  EXPECT_EQ(id1, id2);
  json other = result;
  other["loop"]["proposal"] = "i0001-p01";
  EXPECT_NE(db.ensure_evaluation(other, "src", "run7", "i0001-p01"), id1);
  db.upsert_proposal("run7", row, id1);
  db.upsert_proposal("run7", row, id1);
  EXPECT_EQ(db.count_rows("loop_proposals", "run7"), 1);
  db.upsert_iteration("run7", json{{"iteration", 1}, {"best", nullptr}, {"improved", false}});
  db.upsert_iteration("run7",
                      json{{"iteration", 1}, {"best", {{"id", "i0001-p00"}, {"median", 2.0}, {"ci95", {1.8, 2.2}}}}});
  EXPECT_EQ(db.count_rows("loop_iterations", "run7"), 1);
  db.upsert_family("run7", json{{"name", "tiled"}, {"retired", true}, {"retired_reason", "slow"}});
  EXPECT_EQ(db.count_rows("loop_families", "run7"), 1);
  EXPECT_EQ(db.count_rows("loop_proposals", "other"), 0);
}

// The loop takes a PostgreSQL store as any command does (tests/postgres/test_loop_store.cpp runs
// it on a server): one that cannot be reached is a usage error naming it without its password.
TEST(LoopStore, UnreachablePostgresStoreIsAUsageErrorWithoutThePassword) {
  try {
    kjudge::loop::loop_store db("postgresql://judge:pw@127.0.0.1:1/kjudge?connect_timeout=5");
    FAIL() << "a loop store opened a PostgreSQL server on port 1";
  } catch (const kjudge::usage_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("postgresql://judge:***@127.0.0.1:1/kjudge"), std::string::npos) << msg;
    EXPECT_EQ(msg.find(":pw@"), std::string::npos) << msg;
  }
}
