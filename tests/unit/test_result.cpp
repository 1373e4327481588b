// The typed result document (judge/result.hpp): the golden example reads and writes back as it
// was, byte for byte; null and absence, unknown fields and NaN bounds survive a round trip; a
// malformed document is refused with the field named; the verdict statuses parse and print.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "core/verdict_status.hpp"
#include "judge/result.hpp"

#ifndef KJUDGE_TEST_DATA
#error "KJUDGE_TEST_DATA must name the tests/ directory"
#endif

namespace kjudge {
namespace {

using json = nlohmann::json;

json golden() {
  std::ifstream in(std::filesystem::path(KJUDGE_TEST_DATA) / "golden" / "result-example.json");
  std::ostringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

// The message of the result_format_error that reading `j` throws; "" when it reads.
std::string refusal(const json& j) {
  try {
    (void)result_document::from_json(j);
  } catch (const result_format_error& e) {
    return e.what();
  }
  return "";
}

TEST(ResultDocument, GoldenExampleRoundTripsByteForByte) {
  const json g = golden();
  const result_document d = result_document::from_json(g);
  EXPECT_EQ(d.to_json().dump(2), g.dump(2));
  EXPECT_EQ(result_document::from_json(d.to_json()).to_json(), g);
}

TEST(ResultDocument, GoldenExampleReadsIntoTypedFields) {
  const result_document d = result_document::from_json(golden());
  EXPECT_EQ(d.problem.name, "softmax");
  EXPECT_EQ(d.verdict.status, verdict_status::ok_faster);
  EXPECT_TRUE(d.verdict.ok());
  EXPECT_EQ(d.exit_status(), 0);
  EXPECT_FALSE(d.verdict.rule.has_value());
  ASSERT_EQ(d.cases.size(), 11u);
  EXPECT_EQ(d.cases[4].id, "hidden-2");
  EXPECT_EQ(d.cases[0].n_bad, 0);
  EXPECT_TRUE(d.cases[2].worst.is_null());
  ASSERT_TRUE(d.timing.has_value());
  EXPECT_EQ(d.timing->rounds, 12);
  ASSERT_EQ(d.timing->cases.size(), 3u);
  ASSERT_EQ(d.timing->cases[0].baselines.size(), 2u);
  EXPECT_EQ(d.timing->cases[0].baselines[1].name, "torch_eager");
  ASSERT_TRUE(d.speedup && d.speedup->ci95);
  EXPECT_DOUBLE_EQ(d.speedup->ci95->first, 1.79);
  ASSERT_TRUE(d.speedup->per_baseline.has_value());
  EXPECT_DOUBLE_EQ(d.speedup->per_baseline->at("torch_eager").median.value_or(0), 1.913);
  ASSERT_TRUE(d.memory.has_value());
  EXPECT_EQ(d.memory->candidate_peak_bytes, 65601536);
  ASSERT_TRUE(d.env.has_value());
  EXPECT_EQ(d.env->cores, 16);
  EXPECT_EQ(d.env->extra.value("governor", ""), "performance");
}

// A failing verdict's document: null sections, a null rule and message, fields this reader does
// not know, and a CI bound that was not finite (written as null) all come back as they were.
TEST(ResultDocument, NullsUnknownFieldsAndNonFiniteBoundsRoundTrip) {
  const json j = json::parse(R"({
    "schema": "kjudge.result/1", "problem": {"name": "relu", "future_field": [1, 2]},
    "candidate": {"path": "/c.cpp", "info": null},
    "verdict": {"status": "wrong_result", "rule": "tolerance", "reasons": ["output y: 3 elements"],
                "evidence": {"case": {"id": "public-0", "status": "fail"}}},
    "cases": [{"id": "public-0", "status": "fail", "max_abs_err": null, "n_bad": 3, "message": null,
               "threads": {"before": 1, "after": 1}}],
    "timing": null, "speedup": {"median": 1.0, "ci95": [null, 2.5]}, "baselines": [], "memory": null,
    "build": null, "env": null, "shape_scale": {"factor": 2}})");
  const result_document d = result_document::from_json(j);
  EXPECT_EQ(d.to_json().dump(), j.dump());
  EXPECT_EQ(d.verdict.rule, "tolerance");
  EXPECT_FALSE(d.candidate->info.has_value());
  EXPECT_FALSE(d.cases[0].max_abs_err.has_value());
  EXPECT_TRUE(std::isnan(d.speedup->ci95->first));
  EXPECT_EQ(d.exit_status(), 1);
}

// The writer writes the sections a reader expects even where nothing set them: the verdict's
// rule and reasons, the case and baseline arrays, and null for the sections that do not apply.
TEST(ResultDocument, WriterWritesTheAlwaysPresentSections) {
  result_document d;
  d.problem.name = "softmax";
  d.verdict.status = verdict_status::bad_input;
  d.verdict.reasons = {"no kj_run"};
  const json j = d.to_json();
  EXPECT_EQ(j["schema"], "kjudge.result/1");
  EXPECT_EQ(j["verdict"], json::parse(R"({"status": "bad_input", "rule": null, "reasons": ["no kj_run"]})"));
  EXPECT_EQ(j["cases"], json::array());
  EXPECT_EQ(j["baselines"], json::array());
  for (const char* k : {"timing", "speedup", "memory", "build", "env"}) EXPECT_TRUE(j.at(k).is_null()) << k;
  EXPECT_FALSE(j.contains("candidate"));
  EXPECT_EQ(d.exit_status(), 2);
}

TEST(ResultDocument, MalformedDocumentsAreRefusedNamingTheField) {
  json j = golden();
  j["verdict"].erase("status");
  EXPECT_EQ(refusal(j), "result document: verdict.status: missing");

  j = golden();
  j["verdict"]["status"] = "fast";
  EXPECT_EQ(refusal(j), "result document: verdict.status: unknown status \"fast\"");

  j = golden();
  j["verdict"]["status"] = nullptr;
  EXPECT_EQ(refusal(j), "result document: verdict.status: missing");

  j = golden();
  j["cases"][3]["n_bad"] = "none";
  EXPECT_EQ(refusal(j), "result document: cases[3].n_bad: expected an integer, got string");

  j = golden();
  j["timing"]["cases"][1]["baselines"][0]["median_s"] = true;
  EXPECT_EQ(refusal(j), "result document: timing.cases[1].baselines[0].median_s: expected a number, got boolean");

  j = golden();
  j["speedup"]["ci95"] = json{1.0};
  EXPECT_EQ(refusal(j), "result document: speedup.ci95: expected [lo, hi], got [1.0]");

  j = golden();
  j["problem"].erase("name");
  EXPECT_EQ(refusal(j), "result document: problem.name: missing");

  j = golden();
  j.erase("verdict");
  EXPECT_EQ(refusal(j), "result document: verdict: missing");

  j = golden();
  j["schema"] = "kjudge.result/2";
  EXPECT_EQ(refusal(j), "result document: schema: \"kjudge.result/2\", expected \"kjudge.result/1\"");

  EXPECT_EQ(refusal(json::array()), "result document: the document: expected an object, got array");
  EXPECT_EQ(refusal(golden()), "");
}

TEST(VerdictStatus, EveryStatusParsesFromItsName) {
  for (int i = 0; i <= static_cast<int>(verdict_status::bad_input); ++i) {
    const auto s = static_cast<verdict_status>(i);
    EXPECT_EQ(parse_verdict_status(verdict_status_name(s)), s);
  }
  EXPECT_FALSE(parse_verdict_status("").has_value());
  EXPECT_FALSE(parse_verdict_status("ok").has_value());
  EXPECT_FALSE(parse_verdict_status("OK_FASTER").has_value());
  EXPECT_TRUE(is_ok_status("ok_faster"));
  EXPECT_TRUE(is_ok_status("ok_not_faster"));
  EXPECT_FALSE(is_ok_status("ok"));
  EXPECT_FALSE(is_ok_status("okay"));
  EXPECT_FALSE(is_ok_status("hack"));
  EXPECT_FALSE(is_ok_status(""));
  EXPECT_EQ(exit_status_for(verdict_status::ok_not_faster), 0);
  EXPECT_EQ(exit_status_for(verdict_status::crash), 1);
  EXPECT_EQ(exit_status_for(verdict_status::bad_input), 2);
}

}  // namespace
}  // namespace kjudge
