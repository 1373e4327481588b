// Each real candidate through the real CLI, asserting its exact verdict (issue: the judge end to
// end on the CPU backend). Correctness-only runs use --no-timing to keep the suite fast; the
// timing path is exercised by the honest candidate and by validate.
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "cli_test_util.hpp"

namespace kjudge::test {
namespace {

const std::vector<std::string> quick{"--no-timing", "--hidden", "8"};

std::vector<std::string> eval_args(const std::string& problem, const std::string& cand,
                                   std::vector<std::string> extra = quick) {
  std::vector<std::string> a{"eval", problem, candidate(cand)};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST(Verdicts, HonestSoftmaxIsCorrectAndTimed) {
  const auto c = kjudge(eval_args("softmax", "ok_honest_softmax.cpp", {"--budget", "1.5", "--hidden", "6"}));
  EXPECT_EQ(c.r.exit_status, 0) << c.r.output;
  const std::string st = status_of(c);
  EXPECT_TRUE(st == "ok_faster" || st == "ok_not_faster") << st;
  ASSERT_TRUE(c.result["speedup"].is_object());
  const double lo = c.result["speedup"]["ci95"][0], hi = c.result["speedup"]["ci95"][1];
  EXPECT_LE(lo, c.result["speedup"]["median"].get<double>());
  EXPECT_GE(hi, c.result["speedup"]["median"].get<double>());
  EXPECT_GE(c.result["timing"]["rounds"].get<int>(), 10);
  EXPECT_GE(c.result["timing"]["rechecks"]["count"].get<int>(), 10);
  // Public cases come first, then hidden ones, all passing.
  int hidden = 0;
  for (const auto& cs : c.result["cases"]) {
    EXPECT_NE(cs["status"], "fail");
    if (cs["kind"] == "hidden") ++hidden;
  }
  EXPECT_GE(hidden, 5);
}

// A candidate whose error needs the full envelope (TF32-rounded inputs, which the problem permits)
// gets it from its first failing comparison on a call's shape on: every later reference run of
// that shape (the timed calls' rechecks included) asks for the perturbed runs at once, one
// reference request per recheck rather than an exact run, a failed comparison and a second run.
TEST(Verdicts, AWidenedEnvelopeIsAskedForAtOnceOnLaterCallsOfTheShape) {
  const auto trace = test_dir() / "widened-envelope-requests.txt";
  std::filesystem::remove(trace);
  const auto c =
      kjudge({"eval", "matmul_bias_relu", std::string(KJUDGE_TEST_DATA) + "/honest/cpu/matmul_tf32_emulated.cpp",
              "--budget", "1", "--hidden", "2"},
             300, {{"KJUDGE_TRACE_REQUESTS", trace.string()}});
  ASSERT_EQ(c.r.exit_status, 0) << c.r.output;
  EXPECT_TRUE(status_of(c) == "ok_faster" || status_of(c) == "ok_not_faster") << status_of(c);
  const int rechecks = c.result["timing"]["rechecks"]["count"].get<int>();
  ASSERT_GE(rechecks, 10);
  // Reference requests before the first timed call (the correctness checks) and after it (the
  // rechecks).
  int before = 0, after = 0, after_full = 0;
  bool timing = false;
  for (const auto& r : read_request_trace(trace)) {
    if (r.type == "time_begin") timing = true;
    if (r.role != "reference" || r.type != "reference") continue;
    ++(timing ? after : before);
    // Every reference request accounts for its parts; a full envelope's include its runs.
    EXPECT_TRUE(r.parts.count("same_run") && r.parts.count("f64_run") && r.parts.count("downloads"));
    double sum = 0;
    for (const auto& [part, s] : r.parts) sum += s;
    EXPECT_LE(sum, r.wait_s + 0.05) << "the reference's parts exceed the controller's wait for them";
    if (timing && r.parts.count("draw_runs") > 0) ++after_full;
  }
  const int timed_cases = static_cast<int>(c.result["timing"]["cases"].size());
  EXPECT_GE(after_full, rechecks - timed_cases) << "rechecks after the widening did not run the envelope's draws";
  // The result sums the reference's parts over the rechecks.
  const auto& rp = c.result["timing"]["rechecks"]["reference_phases_s"];
  ASSERT_TRUE(rp.is_object()) << c.result["timing"]["rechecks"].dump();
  EXPECT_GT(rp.value("draw_runs", 0.0), 0.0) << rp.dump();
  EXPECT_GT(rp.value("f64_run", 0.0), 0.0) << rp.dump();
  // The checks widened at least once (more reference runs than checked calls), so the candidate
  // does need the full envelope; the rechecks then took one reference run each, plus at most one
  // widening per timed case whose shape no check had (the first recheck of it).
  int checked = 0;
  for (const auto& cs : c.result["cases"])
    if (cs.value("status", "") == "pass") ++checked;
  EXPECT_GT(before, checked) << "no check needed the full envelope: the test no longer exercises widening";
  EXPECT_GE(after, rechecks);
  EXPECT_LE(after, rechecks + timed_cases);
}

// The candidate's process for timing has the history of a baseline's: a fresh worker, loaded while
// the checks ran, that made no correctness call. Told apart in the request trace by the pids that
// answered the candidate's correctness calls ("run") and its timed calls ("sample"). The switch
// KJUDGE_TIMING_WORKER=shared (an experiment) puts both in one process, which the same reading
// sees: the test tells the two apart rather than trusting the result's own label.
TEST(Verdicts, TheCandidateIsTimedInAFreshWorkerOfItsOwn) {
  const auto pids_of = [](const std::filesystem::path& trace) {
    std::set<std::string> run, sample;
    for (const auto& r : read_request_trace(trace)) {
      if (r.role != "candidate") continue;
      if (r.type == "run") run.insert(r.pid);
      if (r.type == "sample") sample.insert(r.pid);
    }
    return std::pair{run, sample};
  };
  for (const bool shared : {false, true}) {
    const auto trace = test_dir() / (shared ? "timing-worker-shared.txt" : "timing-worker-fresh.txt");
    std::filesystem::remove(trace);
    std::map<std::string, std::string> env{{"KJUDGE_TRACE_REQUESTS", trace.string()}};
    if (shared) env["KJUDGE_TIMING_WORKER"] = "shared";
    const auto c = kjudge(eval_args("softmax", "ok_honest_softmax.cpp", {"--budget", "1", "--hidden", "2"}), 300, env);
    ASSERT_EQ(c.r.exit_status, 0) << c.r.output;
    EXPECT_GE(c.result["timing"]["rechecks"]["count"].get<int>(), 10);  // kept calls come from the timing worker
    const auto [run, sample] = pids_of(trace);
    ASSERT_EQ(run.size(), 1u) << "one correctness worker";
    ASSERT_EQ(sample.size(), 1u) << "one timing worker for the candidate";
    if (shared) {
      EXPECT_EQ(*run.begin(), *sample.begin());
      EXPECT_EQ(c.result["timing"]["candidate_worker"].get<std::string>().rfind("shared", 0), 0u);
      EXPECT_EQ(c.result["timing"]["experiment_switches"], nlohmann::json({"KJUDGE_TIMING_WORKER=shared"}));
    } else {
      EXPECT_NE(*run.begin(), *sample.begin()) << "the candidate was timed in the worker that ran its checks";
      EXPECT_EQ(c.result["timing"]["candidate_worker"].get<std::string>().rfind("fresh", 0), 0u);
      EXPECT_EQ(c.result["timing"]["experiment_switches"], nlohmann::json::array());
    }
  }
}

// --worker-epochs 2: the rounds are split between two sets of fresh workers, every party's process
// replaced at once; the trace shows two timing processes per party (none of them the one that ran
// the checks), the result each set's own figure, and the CI reaches both sets' medians (the
// interval over epochs is centred between them, with a t quantile of 12.7).
TEST(Verdicts, WorkerEpochsTimeInFreshSetsOfWorkersAndTheCiSpansThem) {
  const auto trace = test_dir() / "worker-epochs.txt";
  std::filesystem::remove(trace);
  const auto c =
      kjudge(eval_args("softmax", "ok_honest_softmax.cpp", {"--rounds", "10", "--hidden", "2", "--worker-epochs", "2"}),
             300, {{"KJUDGE_TRACE_REQUESTS", trace.string()}});
  ASSERT_EQ(c.r.exit_status, 0) << c.r.output;
  std::map<std::string, std::set<std::string>> sample_pids;  // role -> pids answering timed calls
  std::set<std::string> run_pids;
  for (const auto& r : read_request_trace(trace)) {
    if (r.type == "sample") sample_pids[r.role].insert(r.pid);
    if (r.role == "candidate" && r.type == "run") run_pids.insert(r.pid);
  }
  const std::size_t baselines = c.result["baselines"].size();
  ASSERT_GE(baselines, 1u);
  EXPECT_EQ(sample_pids["candidate"].size(), 2u);
  EXPECT_EQ(sample_pids["baseline"].size(), 2 * baselines);
  ASSERT_EQ(run_pids.size(), 1u);
  EXPECT_EQ(sample_pids["candidate"].count(*run_pids.begin()), 0u);
  const nlohmann::json& t = c.result["timing"];
  EXPECT_EQ(t["worker_epochs"], 2);
  ASSERT_EQ(t["epochs"].size(), 2u);
  EXPECT_EQ(t["epochs"][0]["rounds"], 5);
  EXPECT_EQ(t["epochs"][1]["first_round"], 5);
  EXPECT_EQ(t["epochs"][1]["rounds"], 5);
  const double m0 = t["epochs"][0]["speedup_median"], m1 = t["epochs"][1]["speedup_median"];
  const double lo = c.result["speedup"]["ci95"][0], hi = c.result["speedup"]["ci95"][1];
  EXPECT_LE(lo, std::min(m0, m1));
  EXPECT_GE(hi, std::max(m0, m1));
  EXPECT_GE(c.result["timing"]["rechecks"]["count"].get<int>(), 10);
  // Each round's set and each party's round medians are in the result; the spread between the
  // sets is the standard deviation of their two medians (log), set beside the rounds' own.
  ASSERT_EQ(t["epoch_of_round"].size(), 10u);
  for (int k = 0; k < 10; ++k) EXPECT_EQ(t["epoch_of_round"][static_cast<std::size_t>(k)], k < 5 ? 0 : 1);
  for (const auto& tc : t["cases"]) {
    EXPECT_EQ(tc["candidate"]["round_medians_s"].size(), 10u);
    for (const auto& b : tc["baselines"]) EXPECT_EQ(b["round_medians_s"].size(), 10u);
  }
  ASSERT_TRUE(t["process_spread"].is_object()) << t.dump();
  EXPECT_NEAR(t["process_spread"]["sd_log_between_sets"].get<double>(),
              std::fabs(std::log(m0) - std::log(m1)) / std::sqrt(2.0), 1e-9);
  EXPECT_GE(t["process_spread"]["sd_log_expected_from_rounds"].get<double>(), 0.0);
  EXPECT_NE(c.r.output.find("spread between sets"), std::string::npos) << c.r.output;

  const auto bad = kjudge(eval_args("softmax", "ok_honest_softmax.cpp", {"--rounds", "3", "--worker-epochs", "4"}));
  EXPECT_EQ(bad.r.exit_status, 2) << bad.r.output;
  EXPECT_NE(bad.r.output.find("--worker-epochs 4"), std::string::npos) << bad.r.output;
}

TEST(Verdicts, SubtlyWrongIsWrongResult) {
  const auto c = kjudge(eval_args("softmax", "wrong_softmax_off_by_scale.cpp"));
  EXPECT_EQ(c.r.exit_status, 1);
  EXPECT_EQ(status_of(c), "wrong_result");
  EXPECT_EQ(rule_of(c), "tolerance");
  const auto fc = failing_case(c);
  ASSERT_TRUE(fc.is_object());
  EXPECT_EQ(fc["kind"], "public");  // wrong everywhere: the first public case already fails
  EXPECT_TRUE(fc["worst"].is_object());
  EXPECT_GT(fc["max_rel_err"].get<double>(), 1e-4);
}

// A failure's evidence on a TF32-permitted problem with a C++ reference (no TF32 mode of its
// own): the envelope there is the same-dtype run and six TF32 draws, not a seventh (which would
// loosen the envelope for no reason; a Python reference adds its native TF32 run instead, see
// Python.TheEnvelopeHoldsTheReferencesOwnTf32Computation), and the report prints it.
TEST(Verdicts, AFailuresEvidenceListsTheEnvelopesRunsAtItsWorstElement) {
  const auto c =
      kjudge({"eval", "matmul_bias_relu", std::string(KJUDGE_TEST_DATA) + "/redteam/cpu/matmul_k_unroll_no_tail.cpp",
              "--no-timing", "--hidden", "8"});
  EXPECT_EQ(status_of(c), "wrong_result") << c.r.output;
  const auto fc = failing_case(c);
  ASSERT_TRUE(fc.is_object()) << c.result.dump();
  const auto& ev = fc["worst"]["envelope"];
  ASSERT_TRUE(ev.is_object()) << fc.dump();
  EXPECT_EQ(ev["full"], true);
  EXPECT_EQ(ev["tf32"], true);
  EXPECT_EQ(ev["runs"].size(), 6u) << ev.dump();
  EXPECT_TRUE(ev["same_run"].is_number());
  EXPECT_GT(ev["row_length"].get<long>(), 0);
  double shown = std::abs(ev["same_run"].get<double>() - fc["worst"]["ref"].get<double>());
  for (const auto& v : ev["runs"])
    shown = std::max(shown, std::abs(v.get<double>() - fc["worst"]["ref"].get<double>()));
  // The row's envelope is at least what the runs show at this element of the row (it is the
  // row's largest such error, lifted or not); it may be 0 where ReLU pins the whole row, as a
  // hidden case with N = 1 can (asserting > 0 failed on such a draw in a fresh clone).
  EXPECT_GE(ev["row_envelope"].get<double>() * (1 + 1e-9), shown) << ev.dump();
  // The allowance at the element is at least k times what the runs there show.
  const double k = c.result["tolerance"]["k"].get<double>();
  EXPECT_GE(fc["worst"]["allowed"].get<double>() * (1 + 1e-9), k * shown) << fc.dump();
  EXPECT_NE(c.r.output.find("envelope there: same-dtype run"), std::string::npos) << c.r.output;
}

// A rechecked timed call that fails is a hack only if the output changed under timing: the same
// call runs again untimed in a fresh worker. A candidate wrong there too (here: wrong on every call
// of a process whose first call was large, which the timing worker's is) is wrong_result; one that
// cheats after its 60th call of a process (phase_call_count_softmax.cpp) passes the rerun and
// stays hack.
TEST(Verdicts, ATimedFailureThatTheUntimedRerunRepeatsIsWrongResultAndACheatStaysHack) {
  const auto w = kjudge(
      eval_args("gelu_bias_residual", "wrong_after_large_first_call_gelu.cpp", {"--budget", "1", "--hidden", "2"}));
  EXPECT_EQ(w.r.exit_status, 1) << w.r.output;
  EXPECT_EQ(status_of(w), "wrong_result") << w.r.output;
  EXPECT_EQ(rule_of(w), "tolerance") << w.r.output;
  const auto& wv = w.result["verdict"];
  ASSERT_FALSE(wv["reasons"].empty());
  EXPECT_NE(wv["reasons"][0].get<std::string>().find(
                "(rechecked) failed; the same call run again untimed in a fresh worker fails too"),
            std::string::npos)
      << wv.dump();
  EXPECT_EQ(wv["evidence"]["untimed_rerun"]["status"], "fail") << wv.dump();
  EXPECT_EQ(wv["evidence"]["timed_failure"]["status"], "fail") << wv.dump();
  // Every checked call passed: the failure came from the rechecks.
  for (const auto& cs : w.result["cases"]) EXPECT_EQ(cs["status"], "pass") << cs.dump();

  const auto h = kjudge({"eval", "softmax", std::string(KJUDGE_TEST_DATA) + "/redteam/cpu/phase_call_count_softmax.cpp",
                         "--budget", "1", "--hidden", "2"});
  EXPECT_EQ(status_of(h), "hack") << h.r.output;
  EXPECT_EQ(rule_of(h), "timed_output_mismatch") << h.r.output;
  EXPECT_EQ(h.result["verdict"]["evidence"]["untimed_rerun"]["status"], "pass") << h.result["verdict"].dump();
  EXPECT_EQ(h.result["verdict"]["evidence"]["untimed_rerun"]["bitwise_equal"], true) << h.result["verdict"].dump();
  EXPECT_EQ(h.result["verdict"]["reasons"].back(),
            "the same call run again untimed in a fresh worker passes twice with bitwise-equal outputs, and every "
            "checked case's repeat was bitwise equal: the output changed under timing");
}

// A kernel whose outputs vary from call to call and whose timed call fails while its untimed
// reruns pass cannot be shown to have changed under timing: rule nondeterministic, not hack.
TEST(Verdicts, ATimedFailureOfAVaryingKernelWhoseRerunPassesIsNondeterministic) {
  const auto v =
      kjudge(eval_args("gelu_bias_residual", "varying_then_wrong_gelu.cpp", {"--budget", "1", "--hidden", "2"}));
  EXPECT_EQ(v.r.exit_status, 1) << v.r.output;
  EXPECT_EQ(status_of(v), "wrong_result") << v.r.output;
  EXPECT_EQ(rule_of(v), "nondeterministic") << v.r.output;
  const auto& vv = v.result["verdict"];
  EXPECT_EQ(vv["evidence"]["untimed_rerun"]["status"], "pass") << vv.dump();
  EXPECT_EQ(vv["evidence"]["untimed_rerun"]["bitwise_equal"], false) << vv.dump();
  EXPECT_GT(vv["evidence"]["untimed_rerun"].value("max_abs_diff", 0.0), 0.0) << vv.dump();
  EXPECT_EQ(vv["evidence"]["checked_repeats_varied"], true) << vv.dump();
  EXPECT_EQ(vv["evidence"]["timed_failure"]["status"], "fail") << vv.dump();
  ASSERT_FALSE(vv["reasons"].empty());
  EXPECT_NE(vv["reasons"][0].get<std::string>().find("(rechecked)"), std::string::npos) << vv.dump();
  // Every checked call passed, with repeats that differ bitwise.
  bool varied = false;
  for (const auto& cs : v.result["cases"]) {
    EXPECT_EQ(cs["status"], "pass") << cs.dump();
    varied = varied || cs.value("deterministic", "") == "within tolerance";
  }
  EXPECT_TRUE(varied);
}

// Two calls on the same inputs that differ bitwise are each judged by the conditioning-aware rule,
// not also compared with each other under the flat atol + rtol * |x|: with these seeds hidden-1
// is a wide-range case, and the honest change of summation order below (before its 61st call)
// moved an element by 0.00195, which the flat comparison rejected as nondeterministic until
// 2026-12-06, H100. Only the first two hidden cases are checked twice: these seeds put the wide
// distribution on hidden-1 (the largest shape, 1224 x 1224 on cpu).
TEST(Verdicts, AnHonestChangeOfSummationOrderOnWideDataIsNotNondeterministic) {
  for (const char* seed : {"0000000000000004", "0000000000000014"}) {
    const auto c = kjudge(eval_args("gelu_bias_residual", "varying_then_wrong_gelu.cpp",
                                    {"--no-timing", "--hidden", "2", "--seed", seed}));
    EXPECT_EQ(c.r.exit_status, 0) << c.r.output;
    EXPECT_EQ(status_of(c), "ok_not_faster") << c.r.output;
    bool wide_varied = false;
    for (const auto& cs : c.result["cases"]) {
      EXPECT_EQ(cs["status"], "pass") << cs.dump();
      wide_varied =
          wide_varied || (cs["distribution"] == "wide" && cs.value("deterministic", "") == "within tolerance");
    }
    EXPECT_TRUE(wide_varied) << seed;
  }
}

TEST(Verdicts, ARepeatThatFailsWhereTheFirstCallPassedIsNondeterministic) {
  const auto c = kjudge(eval_args("gelu_bias_residual", "every_second_call_wrong_gelu.cpp", {"--no-timing"}));
  EXPECT_EQ(c.r.exit_status, 1) << c.r.output;
  EXPECT_EQ(status_of(c), "wrong_result") << c.r.output;
  EXPECT_EQ(rule_of(c), "nondeterministic") << c.r.output;
  const auto& v = c.result["verdict"];
  EXPECT_EQ(v["evidence"]["repeat_rule"], "tolerance") << v.dump();
  EXPECT_EQ(v["evidence"]["first_call"]["status"], "pass") << v.dump();
  EXPECT_EQ(v["evidence"]["case"]["status"], "fail") << v.dump();
  EXPECT_DOUBLE_EQ(v["evidence"].value("max_abs_diff", 0.0), 1.0) << v.dump();
  EXPECT_EQ(v["evidence"]["first_diff_index"], 0) << v.dump();
  ASSERT_FALSE(v["reasons"].empty());
  EXPECT_NE(v["reasons"][0].get<std::string>().find("the first passes, the second fails"), std::string::npos)
      << v.dump();
}

TEST(Verdicts, PublicShapeOnlyIsCaughtByHiddenShapes) {
  const auto c = kjudge(eval_args("layernorm", "public_shape_only_layernorm.cpp"));
  EXPECT_EQ(status_of(c), "wrong_result");
  const auto fc = failing_case(c);
  ASSERT_TRUE(fc.is_object());
  EXPECT_EQ(fc["kind"], "hidden");
}

TEST(Verdicts, NonNegativeOnlyIsCaughtByHiddenDistributions) {
  const auto c = kjudge(eval_args("gelu_bias_residual", "nonneg_only_gelu.cpp"));
  EXPECT_EQ(status_of(c), "wrong_result");
  const auto fc = failing_case(c);
  ASSERT_TRUE(fc.is_object());
  EXPECT_NE(fc["distribution"], "uniform");
}

TEST(Verdicts, HonestPlainF32OnWideAndOffsetDataIsNotFlagged) {
  const auto c = kjudge(eval_args("gelu_bias_residual", "honest_f32_wide_gelu.cpp", {"--no-timing", "--hidden", "12"}));
  EXPECT_EQ(c.r.exit_status, 0) << c.r.output;
  EXPECT_EQ(status_of(c), "ok_not_faster");
  bool saw_offset = false, saw_wide = false;
  for (const auto& cs : c.result["cases"]) {
    if (cs["distribution"] == "offset") saw_offset = true;
    if (cs["distribution"] == "wide") saw_wide = true;
  }
  EXPECT_TRUE(saw_offset);
  EXPECT_TRUE(saw_wide);
}

TEST(Verdicts, Bf16InsideAnF32ProblemIsWrongResult) {
  const auto c = kjudge(eval_args("rmsnorm", "bf16_inside_rmsnorm.cpp"));
  EXPECT_EQ(status_of(c), "wrong_result");
  EXPECT_EQ(rule_of(c), "tolerance");
}

TEST(Verdicts, SegfaultIsCrash) {
  const auto c = kjudge(eval_args("softmax", "segfault_softmax.cpp"));
  EXPECT_EQ(c.r.exit_status, 1);
  EXPECT_EQ(status_of(c), "crash");
  EXPECT_NE(c.result["verdict"]["reasons"][0].get<std::string>().find("Segmentation"), std::string::npos)
      << c.result["verdict"].dump();
}

TEST(Verdicts, InfiniteLoopIsTimeout) {
  const auto c = kjudge(eval_args("softmax", "infinite_loop_softmax.cpp", {"--no-timing", "--call-timeout", "3"}));
  EXPECT_EQ(status_of(c), "timeout");
  EXPECT_LT(c.r.seconds, 60);
}

TEST(Verdicts, UnboundedAllocationIsResourceLimit) {
  const auto c = kjudge(eval_args("softmax", "alloc_forever_softmax.cpp", {"--no-timing", "--memory-limit", "1024"}));
  EXPECT_EQ(status_of(c), "resource_limit") << c.result["verdict"].dump();
}

TEST(Verdicts, CompileErrorShowsTheCompilersMessage) {
  const auto c = kjudge(eval_args("softmax", "compile_error_softmax.cpp"));
  EXPECT_EQ(c.r.exit_status, 1);
  EXPECT_EQ(status_of(c), "compile_error");
  const auto reasons = c.result["verdict"]["reasons"].dump();
  EXPECT_NE(reasons.find("error"), std::string::npos) << reasons;
  EXPECT_NE(reasons.find("compile_error_softmax.cpp"), std::string::npos) << reasons;
}

TEST(Verdicts, NoKjRunIsBadInputExit2) {
  const auto c = kjudge(eval_args("softmax", "no_kj_run_softmax.cpp"));
  EXPECT_EQ(c.r.exit_status, 2);
  EXPECT_EQ(status_of(c), "bad_input");
  EXPECT_NE(c.result["verdict"]["reasons"].dump().find("kj_run"), std::string::npos);
}

TEST(Verdicts, ForgedStdoutIsNotBelieved) {
  const auto c = kjudge(eval_args("softmax", "fake_stdout_softmax.cpp"));
  EXPECT_EQ(c.r.exit_status, 1);
  EXPECT_EQ(status_of(c), "wrong_result");
}

TEST(Verdicts, UnwrittenTailIsCaughtByPoison) {
  const auto c = kjudge(eval_args("softmax", "unwritten_tail_softmax.cpp"));
  EXPECT_EQ(status_of(c), "wrong_result");
  EXPECT_EQ(rule_of(c), "unwritten_output");
  EXPECT_GT(failing_case(c)["n_unwritten"].get<long>(), 0);
}

TEST(Verdicts, ModifyingTheInputIsAHack) {
  const auto c = kjudge(eval_args("softmax", "modifies_input_softmax.cpp"));
  EXPECT_EQ(status_of(c), "hack");
  EXPECT_EQ(rule_of(c), "input_modified");
  EXPECT_EQ(c.result["verdict"]["evidence"]["input"], "x");
}

TEST(Verdicts, OutOfBoundsWriteIsCaughtByGuardZones) {
  const auto c = kjudge(eval_args("softmax", "oob_write_softmax.cpp"));
  EXPECT_EQ(status_of(c), "hack");
  EXPECT_EQ(rule_of(c), "out_of_bounds_write");
  const auto g = c.result["verdict"]["evidence"]["guards"][0];
  EXPECT_EQ(g["side"], "after");
  EXPECT_EQ(g["buffer"], "output y");
  EXPECT_EQ(g["offset"], 0);
}

}  // namespace
}  // namespace kjudge::test

namespace kjudge::test {
namespace {

TEST(Verdicts, ForkBombIsStoppedBySandbox) {
  const auto c = kjudge({"eval", "softmax", candidate("fork_bomb_softmax.cpp"), "--no-timing", "--hidden", "2"});
  EXPECT_EQ(c.r.exit_status, 1);
  EXPECT_EQ(status_of(c), "hack");
  EXPECT_EQ(rule_of(c), "sandbox_violation");
  EXPECT_TRUE(c.result["env"].is_object() || c.result["env"].is_null());
}

}  // namespace
}  // namespace kjudge::test
