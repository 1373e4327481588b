// Autotune templates and successive halving (src/loop/halving.hpp, rung_profile in proposer.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "loop/halving.hpp"
#include "loop/proposer.hpp"

namespace kl = kjudge::loop;

namespace {

const char* k_template =
    "// A template.\n"
    "// kj-param: BLOCK = 1, 8, 64\n"
    "//   kj-param:UNROLL=1,4\n"
    "#include \"kjudge/candidate.h\"\n"
    "int body() { return BLOCK * UNROLL; }\n";

std::string error_of(const std::string& text) {
  try {
    kl::parse_template_text("t.cpp", text);
  } catch (const kjudge::usage_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(LoopTemplate, ParsesParametersInOrder) {
  const auto t = kl::parse_template_text("/x/t.cpp", k_template);
  ASSERT_EQ(t.params.size(), 2u);
  EXPECT_EQ(t.params[0].name, "BLOCK");
  EXPECT_EQ(t.params[0].values, (std::vector<std::string>{"1", "8", "64"}));
  EXPECT_EQ(t.params[0].line, 2);
  EXPECT_EQ(t.params[1].name, "UNROLL");
  EXPECT_EQ(t.params[1].values, (std::vector<std::string>{"1", "4"}));
  EXPECT_EQ(kl::config_space_size(t), 6u);
  EXPECT_EQ(t.sha256.size(), 64u);
}

TEST(LoopTemplate, MalformedParameterLinesNameFileAndLine) {
  EXPECT_NE(error_of("x\n// kj-param: 9X = 1\n").find("t.cpp:2:"), std::string::npos);
  EXPECT_NE(error_of("// kj-param: A = 1,,2\n").find("t.cpp:1:"), std::string::npos);
  EXPECT_NE(error_of("// kj-param: A\n").find("no '='"), std::string::npos);
  EXPECT_NE(error_of("// kj-param: A = 1\n// kj-param: A = 2\n").find("declared twice"), std::string::npos);
  EXPECT_NE(error_of("// kj-param: A = 1, 1\n").find("repeated"), std::string::npos);
  EXPECT_NE(error_of("int x;\n").find("declares no parameter"), std::string::npos);
}

TEST(LoopTemplate, ConfigKeysRoundTrip) {
  const auto t = kl::parse_template_text("t.cpp", k_template);
  const kl::config c{2, 1};
  EXPECT_EQ(kl::config_key(t, c), "BLOCK=64 UNROLL=4");
  EXPECT_EQ(kl::config_from_key(t, "BLOCK=64 UNROLL=4"), c);
  EXPECT_FALSE(kl::config_from_key(t, "BLOCK=63 UNROLL=4").has_value());
  EXPECT_FALSE(kl::config_from_key(t, "UNROLL=4 BLOCK=64").has_value());
  EXPECT_FALSE(kl::config_from_key(t, "BLOCK=64").has_value());
}

TEST(LoopTemplate, InstantiationDefinesEveryParameterAboveTheTemplate) {
  const auto t = kl::parse_template_text("/x/t.cpp", k_template);
  const std::string s = kl::instantiate(t, {1, 0});
  const auto defs = s.find("#define BLOCK 8\n");
  const auto line = s.find("#line 1 \"t.cpp\"\n");
  ASSERT_NE(defs, std::string::npos);
  ASSERT_NE(s.find("#define UNROLL 1\n"), std::string::npos);
  ASSERT_NE(s.find("#define KJ_AUTOTUNE_CONFIG \"BLOCK=8 UNROLL=1\"\n"), std::string::npos);
  ASSERT_NE(line, std::string::npos);
  EXPECT_LT(defs, line);
  EXPECT_NE(s.find(k_template), std::string::npos);
  // Different configurations are different sources (the judge tells them apart by hash).
  EXPECT_NE(s, kl::instantiate(t, {1, 1}));
}

TEST(LoopTemplate, InitialConfigsAreAllOrASampleHoldingTheDefault) {
  const auto t = kl::parse_template_text("t.cpp", k_template);
  EXPECT_EQ(kl::initial_configs(t, 64, 1).size(), 6u);
  const auto s = kl::initial_configs(t, 3, 7);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.front(), (kl::config{0, 0}));
  std::set<kl::config> uniq(s.begin(), s.end());
  EXPECT_EQ(uniq.size(), 3u);
  EXPECT_EQ(kl::initial_configs(t, 3, 7), s);  // deterministic for a seed
}

TEST(LoopHalving, PlannedRungs) {
  EXPECT_EQ(kl::planned_rungs(1, 2), 1);
  EXPECT_EQ(kl::planned_rungs(2, 2), 2);
  EXPECT_EQ(kl::planned_rungs(4, 2), 3);
  EXPECT_EQ(kl::planned_rungs(12, 2), 5);  // 12, 6, 3, 2, 1
  EXPECT_EQ(kl::planned_rungs(16, 2), 5);
}

TEST(LoopHalving, KeepsTheBestHalfEachRungUntilOneIsLeft) {
  std::vector<std::string> initial;
  for (int i = 0; i < 16; ++i) initial.push_back("c" + std::to_string(i));
  // Score = index: c15 is best. Judged results feed the next rung.
  auto score_of = [](const std::string& k) { return std::stod(k.substr(1)); };
  std::vector<std::vector<kl::rung_result>> done;
  std::vector<std::size_t> sizes;
  std::vector<double> fractions;
  while (auto plan = kl::next_rung(initial, done, kl::halving_params{})) {
    EXPECT_EQ(plan->rung, static_cast<int>(done.size()));
    EXPECT_EQ(plan->planned_rungs, 5);
    sizes.push_back(plan->keys.size());
    fractions.push_back(plan->budget_fraction);
    std::vector<kl::rung_result> r;
    for (const auto& k : plan->keys) r.push_back({k, true, score_of(k)});
    done.push_back(r);
    ASSERT_LT(done.size(), 10u);
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{16, 8, 4, 2, 1}));
  EXPECT_EQ(fractions, (std::vector<double>{1.0 / 16, 1.0 / 8, 1.0 / 4, 1.0 / 2, 1.0}));
  EXPECT_EQ(done.back()[0].key, "c15");
  // 31 judgements instead of 16 at the full budget: the first rung costs 1/16 each.
}

TEST(LoopHalving, RejectedConfigurationsNeverSurvive) {
  const std::vector<std::string> initial{"a", "b", "c", "d"};
  std::vector<std::vector<kl::rung_result>> done{{{"a", false, 0}, {"b", true, 1.0}, {"c", false, 0}, {"d", false, 0}}};
  auto plan = kl::next_rung(initial, done, kl::halving_params{});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->keys, (std::vector<std::string>{"b"}));
  EXPECT_EQ(plan->budget_fraction, 1.0);  // the last one standing gets the full budget
  done.push_back({{"b", true, 1.0}});
  EXPECT_FALSE(kl::next_rung(initial, done, kl::halving_params{}));
  // Nothing correct: the search ends.
  std::vector<std::vector<kl::rung_result>> none{{{"a", false, 0}, {"b", false, 0}}};
  EXPECT_FALSE(kl::next_rung({"a", "b"}, none, kl::halving_params{}));
}

TEST(LoopHalving, TiesAreBrokenByKey) {
  std::vector<std::vector<kl::rung_result>> done{
      {{"b", true, 1.0}, {"a", true, 1.0}, {"c", true, 0.5}, {"d", true, 0.1}}};
  const auto plan = kl::next_rung({"a", "b", "c", "d"}, done, kl::halving_params{});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->keys, (std::vector<std::string>{"a", "b"}));
}

TEST(LoopHalving, RungProfilesGrowStrictlyAndEndAtTheFullProfile) {
  kl::judge_profile full;
  full.timing_budget_s = 0.5;
  full.min_rounds = 4;
  std::vector<std::string> initial(12, "");
  for (int i = 0; i < 12; ++i) initial[static_cast<std::size_t>(i)] = "c" + std::to_string(i);
  double last_budget = 0;
  for (int r = 0; r < 5; ++r) {
    kl::rung_plan plan;
    plan.rung = r;
    plan.planned_rungs = 5;
    plan.budget_fraction = r == 4 ? 1.0 : std::pow(2.0, -(4 - r));
    const auto p = kl::rung_profile(plan, full);
    EXPECT_GE(p.timing_budget_s, 0.2);
    EXPECT_GE(p.min_rounds, 3);
    EXPECT_GT(p.timing_budget_s, last_budget) << "rung " << r;  // never a duplicate of the rung before
    last_budget = p.timing_budget_s;
    if (r == 4) {
      EXPECT_EQ(p.timing_budget_s, full.timing_budget_s);
      EXPECT_EQ(p.min_rounds, full.min_rounds);
    }
  }
  // With room above the floor the schedule is exactly full * 2^-(rungs left).
  full.timing_budget_s = 16;
  full.min_rounds = 10;
  kl::rung_plan plan;
  plan.rung = 1;
  plan.planned_rungs = 5;
  plan.budget_fraction = 0.125;
  EXPECT_NEAR(kl::rung_profile(plan, full).timing_budget_s, 2.0, 1e-9);
}
