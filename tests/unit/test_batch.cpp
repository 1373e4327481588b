// kjudge batch (src/batch/): discovery in the three layouts, shards, the state directory's
// batch id, eval_results.json's shape and fast_p.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "batch/discovery.hpp"
#include "batch/state.hpp"
#include "batch/summary.hpp"
#include "core/error.hpp"

namespace kjudge::batch {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("kjudge-batch-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "x\n";
}

TEST(batch_discovery, kjudge_layout_matches_suite_and_imported_problems_and_says_why_not) {
  const fs::path run = fresh_dir("kj-run"), problems = fresh_dir("kj-problems");
  touch(problems / "kb" / "level1" / "19_ReLU" / "problem.toml");
  touch(run / "softmax" / "b.cpp");
  touch(run / "softmax" / "a.cpp");
  touch(run / "kb" / "level1" / "19_ReLU" / "new.py");
  touch(run / "nosuch" / "c.cpp");
  touch(run / "loose.cpp");
  touch(run / "softmax" / "notes.txt");
  touch(run / ".kjudge-batch" / "results" / "x.cpp");
  EXPECT_EQ(detect_layout(run), "kjudge");
  const discovery d = discover(run, "auto", problems);
  ASSERT_EQ(d.candidates.size(), 3u);
  EXPECT_EQ(d.candidates[0].id(), "kb/level1/19_ReLU/kb/level1/19_ReLU/new.py");
  EXPECT_EQ(d.candidates[0].problem_arg, fs::absolute(problems / "kb" / "level1" / "19_ReLU").string());
  EXPECT_EQ(d.candidates[1].id(), "softmax/softmax/a.cpp");
  EXPECT_EQ(d.candidates[1].problem_arg, "softmax");
  EXPECT_EQ(d.candidates[2].rel_path, "softmax/b.cpp");
  ASSERT_EQ(d.unmatched.size(), 2u);
  EXPECT_NE(d.unmatched[0].find("not in a problem's directory"), std::string::npos) << d.unmatched[0];
  EXPECT_NE(d.unmatched[1].find("no problem named nosuch"), std::string::npos) << d.unmatched[1];
}

TEST(batch_discovery, kernelbench_layout_maps_level_and_problem_id_to_imported_problems) {
  const fs::path run = fresh_dir("kb-run"), problems = fresh_dir("kb-problems");
  touch(problems / "kb" / "level1" / "19_ReLU" / "problem.toml");
  touch(problems / "kb" / "level1" / "1_Square_matrix_multiplication_" / "problem.toml");
  touch(problems / "kb" / "level1" / "190_Other" / "problem.toml");  // "19_" must not match "190_"
  touch(run / "level_1_problem_19_sample_0_kernel.py");
  touch(run / "level_1_problem_19_sample_1_kernel.py");
  touch(run / "level_1_problem_1_sample_0_kernel.py");
  touch(run / "level_1_problem_7_sample_0_kernel.py");
  touch(run / "level_2_problem_1_sample_0_kernel.py");
  touch(run / "helper.py");
  EXPECT_EQ(detect_layout(run), "kernelbench");
  const discovery d = discover(run, "auto", problems);
  EXPECT_EQ(d.layout, "kernelbench");
  ASSERT_EQ(d.candidates.size(), 3u);
  EXPECT_EQ(d.candidates[0].problem, "kb/level1/19_ReLU");
  EXPECT_EQ(d.candidates[0].kb_sample, 0);
  EXPECT_EQ(d.candidates[1].kb_sample, 1);
  EXPECT_EQ(d.candidates[2].problem, "kb/level1/1_Square_matrix_multiplication_");
  EXPECT_EQ(d.candidates[2].kb_problem, 1);
  ASSERT_EQ(d.unmatched.size(), 3u);
  std::string all;
  for (const auto& u : d.unmatched) all += u + "\n";
  EXPECT_NE(all.find("helper.py: not named level_"), std::string::npos) << all;
  EXPECT_NE(all.find("level_1_problem_7_sample_0_kernel.py: no problem 7_*"), std::string::npos) << all;
  EXPECT_NE(all.find("level_2_problem_1_sample_0_kernel.py: no imported KernelBench level 2"), std::string::npos)
      << all;
}

TEST(batch_discovery, gpumode_layout_matches_submissions_to_imported_problems) {
  const fs::path run = fresh_dir("gm-run"), problems = fresh_dir("gm-problems");
  touch(problems / "gpumode" / "vectoradd" / "problem.toml");
  touch(run / "vectoradd" / "submission.py");
  touch(run / "grayscale" / "submission.py");
  EXPECT_EQ(detect_layout(run), "gpumode");
  const discovery d = discover(run, "auto", problems);
  ASSERT_EQ(d.candidates.size(), 1u);
  EXPECT_EQ(d.candidates[0].problem, "gpumode/vectoradd");
  ASSERT_EQ(d.unmatched.size(), 1u);
  EXPECT_NE(d.unmatched[0].find("grayscale/submission.py: no imported GPU MODE problem"), std::string::npos);
}

TEST(batch_discovery, refuses_missing_run_dir_and_unknown_layout) {
  EXPECT_THROW(discover("/nonexistent/kjudge-run", "auto", "/tmp"), usage_error);
  EXPECT_THROW(discover(fresh_dir("empty"), "slurm", "/tmp"), usage_error);
}

TEST(batch_shard, shards_partition_the_sorted_list_by_index_modulo_n) {
  std::vector<candidate_entry> all;
  for (int i = 0; i < 11; ++i) all.push_back({"p", "p", "c" + std::to_string(100 + i) + ".cpp", {}, {}, {}, {}});
  std::multiset<std::string> seen;
  for (unsigned i = 0; i < 4; ++i) {
    const auto s = pick_shard(all, i, 4);
    EXPECT_EQ(s.size(), i < 3 ? 3u : 2u);
    for (std::size_t k = 0; k < s.size(); ++k) EXPECT_EQ(s[k].rel_path, all[i + 4 * k].rel_path);
    for (const auto& c : s) seen.insert(c.rel_path);
  }
  EXPECT_EQ(seen.size(), all.size());
  for (const auto& c : all) EXPECT_EQ(seen.count(c.rel_path), 1u);
  EXPECT_EQ(parse_shard("2/3"), std::make_pair(2u, 3u));
  for (const char* bad : {"3/3", "1/0", "-1/3", "1/3x", "a/b", "1"}) EXPECT_THROW(parse_shard(bad), usage_error) << bad;
}

TEST(batch_state, keeps_one_batch_id_across_opens_and_keys_results_by_it) {
  const fs::path run = fresh_dir("st-run");
  std::vector<candidate_entry> all{{"softmax", "softmax", "softmax/a.cpp", run / "softmax/a.cpp", {}, {}, {}}};
  const batch_state a = open_state(run / ".kjudge-batch", run, "kjudge", all, json{{"budget", 1}});
  const batch_state b = open_state(run / ".kjudge-batch", run, "kjudge", all, json{{"budget", 2}});
  EXPECT_EQ(a.batch_id, b.batch_id);
  EXPECT_EQ(a.batch_id.size(), 13u);
  EXPECT_EQ(candidate_key(a, all[0]), a.batch_id + "/softmax/softmax/a.cpp");
  EXPECT_FALSE(has_result(a, candidate_key(a, all[0])));
  std::ifstream in(run / ".kjudge-batch" / "batch.json");
  const json doc = json::parse(in);
  EXPECT_EQ(doc["options"]["budget"], 2);
  EXPECT_EQ(doc["candidates"][0]["key"], candidate_key(a, all[0]));
}

json result_doc(const std::string& problem, const std::string& status, std::optional<double> eager,
                std::optional<double> compile_default, std::optional<double> compile_max, int kb_id = -1,
                int sample = 0) {
  json d{{"schema", "kjudge.result/1"}, {"problem", {{"name", problem}}}, {"verdict", {{"status", status}}}};
  json per = json::object();
  if (eager) per["torch:eager"] = {{"median", *eager}};
  if (compile_default) per["torch:compile:default"] = {{"median", *compile_default}};
  if (compile_max) per["torch:compile:max-autotune"] = {{"median", *compile_max}};
  if (status.rfind("ok", 0) == 0) {
    d["speedup"] = {{"baseline", "torch:eager"}, {"median", eager.value_or(1.0)}, {"per_baseline", per}};
    json tcase = json::object();
    tcase["candidate"] = {{"median_s", 0.002}, {"n", 30}};
    tcase["baselines"] = json::array({json{{"name", "torch:eager"}, {"median_s", 0.004}}});
    d["timing"] = {{"cases", json::array({tcase})}};
  }
  d["batch"] = {{"key", "b1/" + problem + "/" + std::to_string(sample)}, {"problem", problem}, {"outcome", "judged"}};
  if (kb_id >= 0) d["batch"]["kernelbench"] = {{"level", 1}, {"problem_id", kb_id}, {"sample_id", sample}};
  return d;
}

TEST(batch_summary, fast_p_counts_correct_and_faster_over_all_candidates) {
  const std::vector<json> results{
      result_doc("p1", "ok_faster", 2.5, 1.2, 0.9),  // fast over eager at every p; compile: strongest 0.9
      result_doc("p2", "ok_not_faster", 1.1, std::nullopt, std::nullopt),
      result_doc("p3", "ok_faster", std::nullopt, std::nullopt, std::nullopt),  // correct, no baseline
      result_doc("p4", "wrong_result", std::nullopt, std::nullopt, std::nullopt),
  };
  const json f = fast_p(results);
  EXPECT_EQ(f["n"], 4);
  EXPECT_EQ(f["correct"], 3);
  const json& eager = f["against"]["torch:eager"];
  EXPECT_DOUBLE_EQ(eager["fast_p"]["fast_0"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(eager["fast_p"]["fast_1"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(eager["fast_p"]["fast_1.5"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(eager["fast_p"]["fast_2"].get<double>(), 0.25);
  EXPECT_EQ(eager["correct_without_baseline"], 1);
  const json& comp = f["against"]["torch:compile"];
  EXPECT_DOUBLE_EQ(comp["fast_p"]["fast_0"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(comp["fast_p"]["fast_1"].get<double>(), 0.0);  // 0.9 against max-autotune, the strongest
  EXPECT_EQ(comp["correct_without_baseline"], 2);
  EXPECT_EQ(comp["baselines_used"]["torch:compile:max-autotune"], 1);
  EXPECT_NE(summary_table(results, f).find("torch:eager"), std::string::npos);
}

TEST(batch_summary, eval_results_have_kernelbench_shape_with_kjudge_beside) {
  const std::vector<json> results{
      result_doc("kb/level1/19_ReLU", "ok_faster", 2.0, std::nullopt, std::nullopt, 19, 0),
      result_doc("kb/level1/19_ReLU", "wrong_result", std::nullopt, std::nullopt, std::nullopt, 19, 1),
      result_doc("softmax", "compile_error", std::nullopt, std::nullopt, std::nullopt)};
  const json e = kernelbench_eval_results(results);
  ASSERT_TRUE(e.contains("19"));
  ASSERT_EQ(e["19"].size(), 2u);
  const json& s0 = e["19"][0];
  for (const char* k :
       {"sample_id", "compiled", "correctness", "runtime", "runtime_stats", "ref_runtime", "metadata", "kjudge"})
    EXPECT_TRUE(s0.contains(k)) << k;
  EXPECT_EQ(s0["sample_id"], 0);
  EXPECT_TRUE(s0["compiled"].get<bool>());
  EXPECT_TRUE(s0["correctness"].get<bool>());
  EXPECT_DOUBLE_EQ(s0["runtime"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(s0["ref_runtime"].get<double>(), 4.0);
  EXPECT_EQ(s0["kjudge"]["status"], "ok_faster");
  EXPECT_DOUBLE_EQ(s0["kjudge"]["speedup"].get<double>(), 2.0);
  EXPECT_FALSE(e["19"][1]["correctness"].get<bool>());
  EXPECT_TRUE(e["19"][1]["compiled"].get<bool>());
  EXPECT_DOUBLE_EQ(e["19"][1]["runtime"].get<double>(), -1.0);
  ASSERT_TRUE(e.contains("softmax"));
  EXPECT_FALSE(e["softmax"][0]["compiled"].get<bool>());
}

}  // namespace
}  // namespace kjudge::batch
