// The HTML reports in a real browser: Chromium (Debian's `chromium`, scripts/install-deps.sh)
// renders each kind of page headless; tests/browser/check_page.py reads the DOM it built (the
// plots' marks counted against the result, no <script> element, the verdict's words present) and
// its screenshot (not blank). Skipped, visibly, only where Chromium is not installed.
#include <gtest/gtest.h>

#include "html_test_util.hpp"

namespace kjudge::test {
namespace {

using nlohmann::json;

#define REQUIRE_CHROMIUM(var)                                                             \
  const std::string var = chromium_path();                                                \
  if (var.empty())                                                                        \
  GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it): the " \
                  "pages were not checked in a browser"

TEST(HtmlBrowser, EvaluationPagesRenderInChromium) {
  REQUIRE_CHROMIUM(chromium);
  const auto ok = kjudge({"eval", "softmax", candidate("ok_honest_softmax.cpp"), "--budget", "1", "--hidden", "2"});
  ASSERT_TRUE(ok.result.is_object() && ok.result["timing"].is_object()) << ok.r.output;
  std::size_t marks = 0, boxes = 0;
  for (const auto& t : ok.result["timing"]["cases"]) {
    marks += t["baselines"].size();
    boxes += 1 + t["baselines"].size();
  }
  ASSERT_FALSE(html_page({"report", write_result(ok.result, "browser-ok")}, "browser-ok").empty());
  const auto c1 = browser_check(
      chromium, test_dir() / "browser-ok.html",
      {"--count", "forest-mark=" + std::to_string(marks), "--count", "box-mark=" + std::to_string(boxes), "--min",
       "ceiling-mark=1", "--count", "why=0", "--text", ok.result["verdict"]["status"].get<std::string>()});
  EXPECT_EQ(c1.exit_status, 0) << c1.output;

  const auto bad =
      kjudge({"eval", "softmax", candidate("wrong_softmax_off_by_scale.cpp"), "--no-timing", "--hidden", "4"});
  ASSERT_TRUE(bad.result.is_object()) << bad.r.output;
  ASSERT_FALSE(html_page({"report", write_result(bad.result, "browser-bad")}, "browser-bad").empty());
  std::vector<std::string> checks{"--count", "why=1",
                                  "--count", "forest-mark=0",
                                  "--text",  "Why rejected: " + bad.result["verdict"]["status"].get<std::string>()};
  for (const auto& reason : bad.result["verdict"]["reasons"]) {
    checks.push_back("--text");
    checks.push_back(reason.get<std::string>());
  }
  const auto c2 = browser_check(chromium, test_dir() / "browser-bad.html", checks);
  EXPECT_EQ(c2.exit_status, 0) << c2.output;
}

TEST(HtmlBrowser, LoopPageRendersInChromium) {
  REQUIRE_CHROMIUM(chromium);
  const auto dir = html_loop_run("browser-loop");
  std::size_t judged = 0;
  for (const auto& e : journal_events(dir)) judged += e["event"] == "judged" ? 1 : 0;
  ASSERT_FALSE(html_page({"loop", "report", dir.string()}, "browser-loop").empty());
  const auto c = browser_check(chromium, test_dir() / "browser-loop.html",
                               {"--count", "proposal-mark=" + std::to_string(judged), "--count", "rejected=1", "--min",
                                "best-mark=1", "--count", "accept-row=2", "--text", "won:"});
  EXPECT_EQ(c.exit_status, 0) << c.output;
}

TEST(HtmlBrowser, SetPageRendersInChromium) {
  REQUIRE_CHROMIUM(chromium);
  const auto rs = html_result_set(test_dir() / "browser-set");
  std::size_t timed = 0;
  for (const auto& r : rs) timed += r["speedup"].is_object() ? 1 : 0;
  ASSERT_FALSE(html_page({"report", (test_dir() / "browser-set").string()}, "browser-set").empty());
  const auto c = browser_check(chromium, test_dir() / "browser-set.html",
                               {"--count", "result-row=" + std::to_string(rs.size()), "--count", "fastp-curve=2",
                                "--count", "result-mark=" + std::to_string(timed), "--text", "fast_1.5"});
  EXPECT_EQ(c.exit_status, 0) << c.output;
}

}  // namespace
}  // namespace kjudge::test
