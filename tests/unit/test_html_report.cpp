// The HTML renderers (report/html.hpp) and their SVG writer on documents rather than runs: the
// escaping, the axes, one mark per case x baseline on the golden example, and no throw on any
// well-formed document however sparse. The pages of real runs: tests/integration/test_html.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/hash.hpp"
#include "report/html.hpp"
#include "report/svg.hpp"

namespace kjudge {
namespace {

using nlohmann::json;

std::size_t count_of(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

json golden() {
  return json::parse(read_file(std::filesystem::path(KJUDGE_TEST_DATA) / "golden" / "result-example.json"));
}

TEST(HtmlReport, EscapesTheFiveCharacters) {
  EXPECT_EQ(xml_escape("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(xml_escape("plain ± text"), "plain ± text");
}

TEST(HtmlReport, AxesMapAndTick) {
  svg_axis lin{0, 10, 100, 200, false};
  EXPECT_DOUBLE_EQ(lin.map(5), 150);
  EXPECT_EQ(lin.ticks(5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  svg_axis lg{0.1, 10, 0, 200, true};
  EXPECT_DOUBLE_EQ(lg.map(1), 100);
  EXPECT_EQ(lg.ticks(), (std::vector<double>{0.1, 0.2, 0.5, 1, 2, 5, 10}));
  EXPECT_EQ(svg_num(1.0 / 3), "0.33");
  EXPECT_EQ(svg_num(-0.001), "0");
}

TEST(HtmlReport, GoldenExampleHasOneMarkPerCaseAndBaseline) {
  const json r = golden();
  const std::string page = render_html(r);
  std::size_t marks = 0, boxes = 0;
  for (const auto& t : r["timing"]["cases"]) {
    marks += t["baselines"].size();
    boxes += 1 + t["baselines"].size();
  }
  EXPECT_EQ(count_of(page, "class=\"forest-mark\""), marks);
  EXPECT_EQ(count_of(page, "class=\"forest-total\""), r["speedup"]["per_baseline"].size());
  EXPECT_EQ(count_of(page, "class=\"ci\""), marks + r["speedup"]["per_baseline"].size());
  EXPECT_EQ(count_of(page, "class=\"box-mark\""), boxes);
  EXPECT_EQ(count_of(page, "class=\"memory-mark\""), 2u);
  EXPECT_NE(page.find("1.83x [1.79, 1.87]"), std::string::npos);
  EXPECT_EQ(page.find("id=\"why\""), std::string::npos);
}

TEST(HtmlReport, ACeilingOfComputeIsDrawnWhereTheResultCarriesOne) {
  json r = golden();
  std::size_t n = 0;
  for (auto& t : r["timing"]["cases"])
    if (t["achieved"].is_object() && t["achieved"]["gflops"].is_number()) {
      t["achieved"]["ceiling_gflops"] = 1000.0;
      ++n;
    }
  ASSERT_GT(n, 0u);
  const std::string page = render_html(r);
  EXPECT_EQ(count_of(page, "data-ceiling=\"compute\""), n);
}

TEST(HtmlReport, NeverThrowsOnASparseDocument) {
  for (const json& r : {json::object(), json{{"verdict", {{"status", "crash"}}}}, json::array(), json("x"),
                        json{{"timing", {{"cases", {{{"baselines", {json::object(), nullptr}}}}}}}},
                        json{{"verdict", {{"status", "hack"}, {"evidence", {{"case", 3}}}}}}}) {
    std::string page;
    EXPECT_NO_THROW(page = render_html(r)) << r.dump();
    EXPECT_NE(page.find("</html>"), std::string::npos);
  }
  // Every field of the golden example removed in turn.
  const json g = golden();
  for (const auto& [k, v] : g.items()) {
    json r = g;
    r.erase(k);
    EXPECT_NO_THROW((void)render_html(r)) << k;
    r = g;
    r[k] = nullptr;
    EXPECT_NO_THROW((void)render_html(r)) << k;
  }
}

// fast_p against the strongest compile mode takes, per result, the smallest speedup over any
// torch:compile baseline; a rejected result never counts, and every result is in the denominator.
TEST(HtmlReport, FastPAgainstTheStrongestCompileMode) {
  auto doc = [](const std::string& status, double eager, double c_default, double c_max, double strongest) {
    return json{{"schema", "kjudge.result/1"},
                {"problem", {{"name", "p"}}},
                {"verdict", {{"status", status}}},
                {"speedup",
                 {{"median", strongest},
                  {"per_baseline",
                   {{"torch:eager", {{"median", eager}}},
                    {"torch:compile:default", {{"median", c_default}}},
                    {"torch:compile:max-autotune", {{"median", c_max}}}}}}}};
  };
  const std::vector<json> rs{doc("ok_faster", 3.0, 1.6, 1.2, 1.2), doc("ok_not_faster", 2.1, 0.9, 1.4, 0.9),
                             doc("wrong_result", 5.0, 5.0, 5.0, 5.0), doc("ok_faster", 1.7, 2.5, 2.2, 1.7)};
  const std::string page = render_html_set(rs, {"a", "b", "c", "d"});
  // Strongest compile: 1.2, 0.9, (rejected), 2.2 -> above 0: 3 of 4, above 1: 2, above 1.5: 1, above 2: 1.
  EXPECT_NE(page.find("<td>vs the strongest torch.compile mode</td><td class=\"num\">75.0%</td><td "
                      "class=\"num\">50.0%</td><td class=\"num\">25.0%</td><td class=\"num\">25.0%</td>"),
            std::string::npos)
      << page;
  // Eager: 3.0, 2.1, (rejected), 1.7 -> 75%, 75%, 75%, 50%.
  EXPECT_NE(
      page.find("<td>vs eager torch (torch:eager)</td><td class=\"num\">75.0%</td><td class=\"num\">75.0%</td><td "
                "class=\"num\">75.0%</td><td class=\"num\">50.0%</td>"),
      std::string::npos);
  EXPECT_EQ(count_of(page, "class=\"fastp-curve\""), 3u);
  EXPECT_EQ(count_of(page, "<tr class=\"result-row "), 4u);
  // The default table: fastest first by the headline speedup, the rejected one last.
  const auto fastest = page.find("<div class=\"sorted-default\">");
  ASSERT_NE(fastest, std::string::npos);
  EXPECT_LT(page.find("<td>d</td>", fastest), page.find("<td>a</td>", fastest));
  EXPECT_LT(page.find("<td>a</td>", fastest), page.find("<td>b</td>", fastest));
  EXPECT_LT(page.find("<td>b</td>", fastest), page.find("<td>c</td>", fastest));
  // Its slowest-first copy (shown by the "slowest first" link) is the reverse order.
  const auto slowest = page.find("<div id=\"by-slowest\" class=\"sorted-alt\">");
  ASSERT_NE(slowest, std::string::npos);
  EXPECT_LT(page.find("<td>c</td>", slowest), page.find("<td>b</td>", slowest));
  EXPECT_LT(page.find("<td>b</td>", slowest), page.find("<td>a</td>", slowest));
  EXPECT_LT(page.find("<td>a</td>", slowest), page.find("<td>d</td>", slowest));
  EXPECT_LT(page.find("<td>d</td>", slowest), fastest);
}

}  // namespace
}  // namespace kjudge
