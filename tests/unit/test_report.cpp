// Reports: golden-file tests of the Markdown and console renderings of
// tests/golden/result-example.json, schema checks of that example, number formatting, the atomic
// JSON writer.
//
// To regenerate the golden files after an intended change of the renderers, run the tests with
// KJUDGE_UPDATE_GOLDEN=1, then read the diff of tests/golden/ before committing it.
#include <gtest/gtest.h>
#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/json_file.hpp"
#include "report/report.hpp"

#ifndef KJUDGE_TEST_DATA
#error "KJUDGE_TEST_DATA must name the tests/ directory"
#endif

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path k_golden = fs::path(KJUDGE_TEST_DATA) / "golden";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json example() {
  return json::parse(read_text(k_golden / "result-example.json"));
}

// Compares with a golden file, or rewrites it when KJUDGE_UPDATE_GOLDEN is set.
void expect_golden(const std::string& actual, const std::string& file_name) {
  const fs::path p = k_golden / file_name;
  if (const char* u = std::getenv("KJUDGE_UPDATE_GOLDEN"); u != nullptr && *u != '\0') {
    std::ofstream(p, std::ios::binary) << actual;
    std::cerr << "updated " << p << "\n";
  }
  EXPECT_EQ(actual, read_text(p)) << "rendering differs from " << p << " (KJUDGE_UPDATE_GOLDEN=1 regenerates it)";
}

std::string strip_ansi(const std::string& s) {
  // Removes SGR sequences: ESC '[' digits/semicolons 'm'.
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      std::size_t j = i + 2;
      while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == ';')) ++j;
      if (j < s.size() && s[j] == 'm') {
        i = j;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

// The example turned into a rejection: hidden-2 fails, no timing (none is run after a failure).
json wrong_result_example() {
  json r = example();
  r["verdict"] = {{"status", "wrong_result"},
                  {"rule", nullptr},
                  {"reasons", {"hidden-2 (M=513 N=129, wide_range): 12 of 66177 elements outside tolerance"}}};
  for (auto& c : r["cases"]) {
    if (c["id"] == "hidden-2") {
      c["status"] = "fail";
      c["max_abs_err"] = 0.0123;
      c["max_rel_err"] = 0.0412;
      c["norm_rel_err"] = 0.00311;
      c["n_bad"] = 12;
      c["worst"] = {{"index", {300, 77}},
                    {"out", 0.0295},
                    {"ref", 0.0283810596},
                    {"ref_same", 0.028381044},
                    {"allowed", 4.77e-07}};
      c["message"] = "12 of 66177 elements outside tolerance";
    }
  }
  r["timing"] = nullptr;
  r["speedup"] = nullptr;
  r["memory"] = nullptr;
  return r;
}

// `s` matches `pattern`, where '9' stands for a decimal digit, 'f' for a lower-case hex digit and
// every other character for itself.
bool matches(const std::string& s, std::string_view pattern) {
  if (s.size() != pattern.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (pattern[i] == '9') {
      if (c < '0' || c > '9') return false;
    } else if (pattern[i] == 'f') {
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    } else if (c != pattern[i]) {
      return false;
    }
  }
  return true;
}

std::size_t count_lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace

// ---- golden files ----

TEST(report_test, markdown_matches_golden_file) {
  expect_golden(kjudge::render_markdown(example()), "result-example.md");
}

TEST(report_test, console_matches_golden_file) {
  expect_golden(kjudge::render_console(example(), false), "result-example.console.txt");
}

TEST(report_test, golden_example_has_every_schema_field) {
  const json r = example();
  for (const char* key : {"schema", "kjudge_version", "created_at", "problem", "candidate", "device", "mode", "verdict",
                          "cases", "timing", "speedup", "baselines", "memory", "build", "env", "time_to_verdict_s"})
    EXPECT_TRUE(r.contains(key)) << "missing top-level key " << key;
  EXPECT_EQ(r["schema"], std::string(kjudge::result_schema_id));
  EXPECT_TRUE(matches(r["created_at"].get<std::string>(), "9999-99-99T99:99:99Z"));
  for (const char* key : {"name", "dtype", "device"}) EXPECT_TRUE(r["problem"][key].is_string());
  for (const char* key : {"path", "sha256"}) EXPECT_TRUE(r["candidate"][key].is_string());
  EXPECT_TRUE(matches(r["candidate"]["sha256"].get<std::string>(), std::string(64, 'f')));

  const std::set<std::string> statuses = {"ok_faster",     "ok_not_faster", "wrong_result", "compile_error",
                                          "runtime_error", "crash",         "timeout",      "resource_limit",
                                          "hack",          "bad_input"};
  EXPECT_TRUE(statuses.count(r["verdict"]["status"].get<std::string>()));
  EXPECT_TRUE(r["verdict"]["rule"].is_null() || r["verdict"]["rule"].is_string());
  EXPECT_TRUE(r["verdict"]["reasons"].is_array());

  std::set<std::string> bench_ids;
  ASSERT_FALSE(r["cases"].empty());
  for (const auto& c : r["cases"]) {
    for (const char* key : {"id", "kind", "shape", "symbols", "distribution", "seed", "status", "max_abs_err",
                            "max_rel_err", "norm_rel_err", "n_bad", "n_unwritten", "worst", "message"})
      EXPECT_TRUE(c.contains(key)) << c["id"] << " lacks " << key;
    EXPECT_TRUE(std::set<std::string>({"public", "hidden", "bench"}).count(c["kind"].get<std::string>()));
    EXPECT_TRUE(std::set<std::string>({"pass", "fail", "error", "skipped"}).count(c["status"].get<std::string>()));
    EXPECT_TRUE(matches(c["seed"].get<std::string>(), "0x" + std::string(16, 'f')));
    if (c["kind"] == "bench") bench_ids.insert(c["id"].get<std::string>());
  }
  ASSERT_FALSE(r["timing"]["cases"].empty());
  for (const auto& t : r["timing"]["cases"]) {
    EXPECT_TRUE(bench_ids.count(t["id"].get<std::string>())) << t["id"] << " is not a bench case";
    const auto& cand = t["candidate"];
    EXPECT_LE(cand["min_s"].get<double>(), cand["q25_s"].get<double>());
    EXPECT_LE(cand["q25_s"].get<double>(), cand["median_s"].get<double>());
    EXPECT_LE(cand["median_s"].get<double>(), cand["q75_s"].get<double>());
    EXPECT_LE(cand["q75_s"].get<double>(), cand["max_s"].get<double>());
    bool strongest_found = false;
    for (const auto& b : t["baselines"]) {
      if (b["name"] != t["strongest"]) continue;
      strongest_found = true;
      EXPECT_EQ(b["speedup"], t["speedup"]) << t["id"];
    }
    EXPECT_TRUE(strongest_found) << t["id"];
    EXPECT_LE(t["speedup"]["ci95"][0].get<double>(), t["speedup"]["median"].get<double>());
    EXPECT_LE(t["speedup"]["median"].get<double>(), t["speedup"]["ci95"][1].get<double>());
  }
  EXPECT_LE(r["speedup"]["ci95"][0].get<double>(), r["speedup"]["median"].get<double>());
  EXPECT_LE(r["speedup"]["median"].get<double>(), r["speedup"]["ci95"][1].get<double>());
  for (const char* key : {"host", "cpu", "cores", "os", "compiler"})
    EXPECT_TRUE(r["env"].contains(key)) << "env lacks " << key;
}

// ---- renderings beyond the golden files ----

TEST(report_test, console_shows_failing_case_and_no_speedup_for_a_rejection) {
  const std::string out = kjudge::render_console(wrong_result_example(), false);
  EXPECT_NE(out.find("  verdict: wrong_result\n"), std::string::npos) << out;
  EXPECT_NE(out.find("failing case hidden-2 M=513 N=129 wide_range seed 0x1f83d9abfb41bd6b"), std::string::npos) << out;
  EXPECT_NE(out.find("12 elements outside tolerance"), std::string::npos) << out;
  EXPECT_NE(out.find("worst element [300, 77]: out 0.0295, ref 0.0283810596"), std::string::npos) << out;
  EXPECT_NE(out.find("allowed 4.77e-07"), std::string::npos) << out;
  EXPECT_NE(out.find("10 of 11 cases pass"), std::string::npos) << out;
  EXPECT_EQ(out.find("speedup"), std::string::npos) << out;
}

TEST(report_test, markdown_shows_failing_case_details) {
  const std::string md = kjudge::render_markdown(wrong_result_example());
  EXPECT_NE(md.find("### Failing case `hidden-2`"), std::string::npos) << md;
  EXPECT_NE(md.find("- shape: M=513 N=129"), std::string::npos) << md;
  EXPECT_NE(md.find("- distribution: wide_range, seed `0x1f83d9abfb41bd6b`"), std::string::npos);
  EXPECT_NE(md.find("max rel err 0.0412"), std::string::npos) << md;
  EXPECT_NE(md.find("## Environment"), std::string::npos);
  EXPECT_EQ(md.find("## Timing"), std::string::npos);
  EXPECT_EQ(md.find("## Memory"), std::string::npos);
}

TEST(report_test, failing_case_is_taken_from_verdict_evidence_when_not_in_cases) {
  // The judge stops at the first failure and attaches that case to the verdict, not to `cases`.
  json r = example();
  json kept = json::array();
  for (const auto& c : r["cases"])
    if (c["kind"] == "public") kept.push_back(c);
  r["cases"] = kept;
  json failing = {{"id", "hidden-4"},
                  {"kind", "hidden"},
                  {"shape", "M=200 N=1000"},
                  {"symbols", {{"M", 200}, {"N", 1000}}},
                  {"distribution", "all_negative"},
                  {"seed", "0xcbbb9d5dc1059ed8"},
                  {"status", "fail"},
                  {"output", "y"},
                  {"max_abs_err", 0.5},
                  {"max_rel_err", 1.0},
                  {"norm_rel_err", 0.7},
                  {"n_bad", 200000},
                  {"n_unwritten", 0},
                  {"worst", nullptr},
                  {"message", "output y: 200000 elements outside tolerance"}};
  r["verdict"] = {{"status", "wrong_result"},
                  {"rule", "tolerance"},
                  {"reasons", {"case hidden-4: output y: 200000 elements outside tolerance"}},
                  {"evidence", {{"case", failing}, {"guards", {{"canary", "intact"}}}}}};
  r["timing"] = nullptr;
  r["speedup"] = nullptr;
  const std::string out = kjudge::render_console(r, false);
  EXPECT_NE(out.find("failing case hidden-4 M=200 N=1000 all_negative seed 0xcbbb9d5dc1059ed8\n"
                     "    output y: 200000 elements outside tolerance\n"
                     "    max abs err 0.5, max rel err 1, norm rel err 0.7, 200000 elements outside tolerance\n"),
            std::string::npos)
      << out;
  const std::string md = kjudge::render_markdown(r);
  EXPECT_NE(md.find("### Failing case `hidden-4`"), std::string::npos) << md;
  EXPECT_NE(md.find("- output: `y`"), std::string::npos) << md;
  // Evidence other than the case is shown verbatim; the case is not repeated there.
  EXPECT_NE(md.find("Evidence:\n\n```json\n{\n  \"guards\": {\n    \"canary\": \"intact\""), std::string::npos) << md;
  EXPECT_EQ(md.find("\"case\":"), std::string::npos) << md;
}

TEST(report_test, a_failed_call_shows_no_error_figures) {
  json r = json::parse(R"({"schema": "kjudge.result/1", "problem": {"name": "softmax", "dtype": "f32"},
    "device": "cpu", "candidate": {"path": "bad.cpp"},
    "verdict": {"status": "runtime_error", "rule": "nonzero_return", "reasons": ["case public-0: kj_run returned [3]"],
                "evidence": {"case": {"id": "public-0", "kind": "public", "shape": "M=4 N=8",
                                      "distribution": "normal", "seed": "0x0000000000000001"}}},
    "cases": []})");
  const std::string out = kjudge::render_console(r, false);
  EXPECT_NE(out.find("verdict: runtime_error (rule nonzero_return)\n    - case public-0: kj_run returned [3]\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("failing case public-0 M=4 N=8 normal seed 0x0000000000000001\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("max abs err"), std::string::npos) << out;
  EXPECT_EQ(kjudge::render_markdown(r).find("- errors:"), std::string::npos);
}

TEST(report_test, hack_verdict_names_its_rule) {
  json r = wrong_result_example();
  r["verdict"] = {{"status", "hack"},
                  {"rule", "inputs_modified"},
                  {"reasons", {"input x changed during the call (checksum differs)"}}};
  for (auto& c : r["cases"]) c["status"] = "pass";
  const std::string out = kjudge::render_console(r, false);
  EXPECT_NE(out.find("verdict: hack (rule inputs_modified)\n    - input x changed"), std::string::npos) << out;
  EXPECT_NE(kjudge::render_markdown(r).find("**hack**, rule `inputs_modified`"), std::string::npos);
}

TEST(report_test, colour_only_adds_escapes) {
  const json r = example();
  const std::string plain = kjudge::render_console(r, false);
  const std::string coloured = kjudge::render_console(r, true);
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  EXPECT_NE(coloured.find("\x1b[1;32mok_faster\x1b[0m"), std::string::npos);
  EXPECT_EQ(strip_ansi(coloured), plain);
  EXPECT_NE(kjudge::render_console(wrong_result_example(), true).find("\x1b[1;31mwrong_result"), std::string::npos);
}

TEST(report_test, renderers_survive_sparse_and_malformed_documents) {
  for (const json& doc : {json::object(), json::array(), json(nullptr), json("text"),
                          json::parse(R"({"verdict": {"status": 3, "reasons": "x"},
                                          "cases": [null, 1, {"worst": [1]}],
                                          "timing": {"cases": [{"candidate": {"median_s": "x"}}]},
                                          "speedup": {"median": 1.5, "ci95": [1]},
                                          "memory": {"candidate_peak_bytes": null},
                                          "env": [1, 2]})")}) {
    EXPECT_NO_THROW(kjudge::render_markdown(doc)) << doc;
    EXPECT_NO_THROW(kjudge::render_console(doc, true)) << doc;
    EXPECT_NO_THROW(kjudge::render_verdict_table({doc}, false)) << doc;
  }
  const std::string out = kjudge::render_console(json::object(), false);
  EXPECT_NE(out.find("verdict: unknown"), std::string::npos) << out;
}

TEST(report_test, verdict_table_has_one_aligned_row_per_result) {
  const std::vector<json> results = {example(), wrong_result_example()};
  const std::string plain = kjudge::render_verdict_table(results, false);
  EXPECT_EQ(count_lines(plain), 4u) << plain;  // header, rule, two rows
  std::istringstream lines(plain);
  std::string header, rule, ok_row, bad_row;
  std::getline(lines, header);
  std::getline(lines, rule);
  std::getline(lines, ok_row);
  std::getline(lines, bad_row);
  EXPECT_EQ(header.rfind("problem", 0), 0u);
  EXPECT_NE(ok_row.find("softmax"), std::string::npos);
  EXPECT_NE(ok_row.find("fast.cpp"), std::string::npos);
  EXPECT_EQ(ok_row.find("examples/"), std::string::npos);  // the file name only
  EXPECT_NE(ok_row.find("ok_faster"), std::string::npos);
  EXPECT_NE(ok_row.find("1.83x [1.79, 1.87]"), std::string::npos) << ok_row;
  EXPECT_NE(bad_row.find("wrong_result"), std::string::npos);
  EXPECT_NE(bad_row.find("hidden-2 M=513 N=129 wide_range: 12 of 66177"), std::string::npos) << bad_row;
  // Columns line up: "verdict" starts at the same offset in the header and in both rows.
  const auto col = header.find("verdict");
  EXPECT_EQ(ok_row.find("ok_faster"), col);
  EXPECT_EQ(bad_row.find("wrong_result"), col);
  // Colour escapes take no width.
  EXPECT_EQ(strip_ansi(kjudge::render_verdict_table(results, true)), plain);
}

TEST(report_test, history_table) {
  EXPECT_EQ(kjudge::render_history({}), "no evaluations stored\n");
  kjudge::history_row a;
  a.id = 7;
  a.created_at = "2026-12-02T10:00:00Z";
  a.candidate_path = "examples/softmax/fast.cpp";
  a.sha256_prefix = "c7ed1885be80";
  a.dtype = "f32";
  a.device = "cpu";
  a.status = "ok_faster";
  a.speedup_median = 1.834;
  a.speedup_lo = 1.79;
  a.speedup_hi = 1.87;
  kjudge::history_row b = a;
  b.id = 6;
  b.status = "hack";
  b.rule = "inputs_modified";
  b.speedup_median.reset();
  const std::string out = kjudge::render_history({a, b});
  EXPECT_EQ(count_lines(out), 4u) << out;
  EXPECT_NE(out.find("1.83x [1.79, 1.87]"), std::string::npos) << out;
  EXPECT_NE(out.find("inputs_modified"), std::string::npos) << out;
  EXPECT_NE(out.find("c7ed1885be80"), std::string::npos) << out;
  EXPECT_LT(out.find("\n7 "), out.find("\n6 "));  // order kept: newest first
}

// ---- formatting ----

TEST(report_test, format_seconds_known_values) {
  using kjudge::format_seconds;
  EXPECT_EQ(format_seconds(412e-9), "412 ns");
  EXPECT_EQ(format_seconds(1.234e-6), "1.23 us");
  EXPECT_EQ(format_seconds(4.56e-3), "4.56 ms");
  EXPECT_EQ(format_seconds(1.2), "1.20 s");
  EXPECT_EQ(format_seconds(12.34e-6), "12.3 us");
  EXPECT_EQ(format_seconds(214e-6), "214 us");
  EXPECT_EQ(format_seconds(38.7), "38.7 s");
  EXPECT_EQ(format_seconds(1234.0), "1230 s");
  EXPECT_EQ(format_seconds(1e-9), "1.00 ns");
  EXPECT_EQ(format_seconds(1.5e-10), "0.150 ns");
  // Rounding carries into the next unit instead of printing "1000 ns".
  EXPECT_EQ(format_seconds(999.7e-9), "1.00 us");
  EXPECT_EQ(format_seconds(0.99996e-3), "1.00 ms");
  EXPECT_EQ(format_seconds(0.9996), "1.00 s");
  EXPECT_EQ(format_seconds(999.4e-9), "999 ns");
  EXPECT_EQ(format_seconds(0.0), "0 ns");
  EXPECT_EQ(format_seconds(-4.56e-3), "-4.56 ms");
  EXPECT_EQ(format_seconds(std::nan("")), "n/a");
  EXPECT_EQ(format_seconds(INFINITY), "n/a");
}

TEST(report_test, format_bytes_and_speedup_known_values) {
  using kjudge::format_bytes;
  using kjudge::format_speedup;
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(12), "12 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(65601536), "62.6 MiB");
  EXPECT_EQ(format_bytes(1048575), "1.00 MiB");
  EXPECT_EQ(format_bytes(1000.0 * 1024), "0.977 MiB");
  EXPECT_EQ(format_bytes(3.0 * 1024 * 1024 * 1024), "3.00 GiB");
  EXPECT_EQ(format_speedup(1.834), "1.83x");
  EXPECT_EQ(format_speedup(374.2), "374x");
  EXPECT_EQ(format_speedup(0.879), "0.879x");
  EXPECT_EQ(format_speedup(1.0), "1.00x");
  EXPECT_EQ(format_speedup(9.996), "10.0x");
  EXPECT_TRUE(kjudge::is_ok_status("ok_faster"));
  EXPECT_TRUE(kjudge::is_ok_status("ok_not_faster"));
  EXPECT_FALSE(kjudge::is_ok_status("hack"));
  EXPECT_FALSE(kjudge::is_ok_status("bad_input"));
}

// ---- atomic JSON writer ----

namespace {
class report_temp_dir {
 public:
  report_temp_dir() {
    std::string tmpl = (fs::temp_directory_path() / "kjudge_report_test.XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    m_path = tmpl;
  }
  ~report_temp_dir() {
    std::error_code ec;
    fs::remove_all(m_path, ec);
  }
  report_temp_dir(const report_temp_dir&) = delete;
  report_temp_dir& operator=(const report_temp_dir&) = delete;
  report_temp_dir(report_temp_dir&&) = delete;
  report_temp_dir& operator=(report_temp_dir&&) = delete;
  const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
};
}  // namespace

TEST(report_test, write_json_file_round_trips_and_leaves_no_temporaries) {
  report_temp_dir dir;
  const fs::path out = dir.path() / "nested" / "result.json";
  const json doc = example();
  kjudge::write_json_file(out, doc);
  EXPECT_EQ(json::parse(read_text(out)), doc);
  const std::string text = read_text(out);
  EXPECT_EQ(text.back(), '\n');

  // Overwriting replaces the content whole.
  kjudge::write_json_file(out, json{{"schema", "kjudge.result/1"}});
  EXPECT_EQ(json::parse(read_text(out)), (json{{"schema", "kjudge.result/1"}}));

  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(out.parent_path())) ++entries;
  EXPECT_EQ(entries, 1u) << "a temporary file was left behind";
}

TEST(report_test, write_json_file_errors_name_the_path) {
  report_temp_dir dir;
  // The target is an existing directory: rename(2) must fail.
  const fs::path target = dir.path() / "occupied";
  fs::create_directories(target / "child");
  try {
    kjudge::write_json_file(target, json::object());
    FAIL() << "wrote over a directory";
  } catch (const kjudge::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
  }
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u) << "the temporary file was not removed after the failure";

  // A parent that is a regular file.
  const fs::path file = dir.path() / "plain";
  std::ofstream(file) << "x";
  EXPECT_THROW(kjudge::write_json_file(file / "result.json", json::object()), kjudge::usage_error);
}
