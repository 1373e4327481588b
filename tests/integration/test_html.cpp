// `kjudge report --html` (docs/reports.md) on real results: the page of an evaluation holds the
// result's figures (one forest mark per case and baseline, one box per party and case, the
// verdict, the rule and its evidence), a rejection leads with why, an estimate without a CI is
// drawn without an interval, and no string from a result can become markup.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>

#include "html_test_util.hpp"
#include "report/report.hpp"
#include "report/svg.hpp"

namespace kjudge::test {
namespace {

using nlohmann::json;

cli_run eval_of(const std::string& problem, const std::string& cand, std::vector<std::string> extra) {
  std::vector<std::string> a{"eval", problem, cand};
  a.insert(a.end(), extra.begin(), extra.end());
  return kjudge(a);
}

std::size_t forest_marks_expected(const json& r) {
  std::size_t n = 0;
  for (const auto& t : r["timing"]["cases"]) n += t["baselines"].size();
  return n;
}

std::size_t boxes_expected(const json& r) {
  std::size_t n = 0;
  for (const auto& t : r["timing"]["cases"]) n += 1 + t["baselines"].size();
  return n;
}

TEST(Html, EvaluationPageHoldsTheResultsFigures) {
  const auto c = eval_of("softmax", candidate("ok_honest_softmax.cpp"), {"--budget", "1", "--hidden", "2"});
  ASSERT_TRUE(c.result.is_object()) << c.r.output;
  ASSERT_TRUE(c.result["timing"].is_object()) << c.r.output;
  const json& r = c.result;
  const std::string page = html_page({"report", write_result(r, "honest")}, "honest");
  ASSERT_FALSE(page.empty());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count_of(page, "<script"), 0u);
  EXPECT_EQ(count_of(page, "http://") + count_of(page, "https://"),
            count_of(page, "xmlns=\"http://www.w3.org/2000/svg\""))
      << "a page links nothing outside itself";
  const std::string status = r["verdict"]["status"];
  EXPECT_NE(page.find("class=\"badge " + status + "\">" + status + "<"), std::string::npos);
  EXPECT_EQ(page.find("id=\"why\""), std::string::npos) << "a correct candidate's page has no rejection";
  // One forest mark per case x baseline, one box per party per case.
  EXPECT_EQ(count_of(page, "class=\"forest-mark\""), forest_marks_expected(r));
  EXPECT_GE(forest_marks_expected(r), 1u);
  EXPECT_EQ(count_of(page, "class=\"box-mark\""), boxes_expected(r));
  // The table's numbers are the document's.
  for (const auto& t : r["timing"]["cases"]) {
    EXPECT_NE(page.find(format_seconds(t["candidate"]["median_s"].get<double>())), std::string::npos) << t["id"];
    for (const auto& b : t["baselines"]) {
      EXPECT_NE(page.find(">" + format_seconds(b["median_s"].get<double>()) + "<"), std::string::npos) << b["name"];
      EXPECT_NE(page.find(format_speedup(b["speedup"]["median"].get<double>())), std::string::npos) << b["name"];
      EXPECT_NE(page.find("data-baseline=\"" + xml_escape(b["name"].get<std::string>()) + "\""), std::string::npos);
    }
    EXPECT_NE(page.find(t["strongest"].get<std::string>() + " (strongest)"), std::string::npos);
  }
  for (const auto& k : r["cases"])
    EXPECT_NE(page.find("<td>" + k["id"].get<std::string>() + "</td>"), std::string::npos) << k["id"];
  if (r["memory"].is_object() && r["memory"]["candidate_peak_bytes"].is_number()) {
    EXPECT_NE(page.find(format_bytes(r["memory"]["candidate_peak_bytes"].get<double>())), std::string::npos);
  }
  EXPECT_NE(page.find(xml_escape(r["env"]["host"].get<std::string>())), std::string::npos);
  EXPECT_NE(page.find("id=\"build\""), std::string::npos);
  EXPECT_NE(page.find("id=\"ceiling\""), std::string::npos) << "cpu results carry the copy ceiling";
}

TEST(Html, RejectedCandidatesPageLeadsWithWhy) {
  const auto c = eval_of("softmax", candidate("wrong_softmax_off_by_scale.cpp"), {"--no-timing", "--hidden", "4"});
  ASSERT_TRUE(c.result.is_object()) << c.r.output;
  const json& r = c.result;
  ASSERT_EQ(r["verdict"]["status"], "wrong_result");
  // Through the store: `report ID` reads the stored document (the newest row of `history`).
  const auto stored = kjudge({"history", "softmax", "--limit", "1"});
  ASSERT_EQ(stored.r.exit_status, 0);
  const auto rule_line = stored.r.output.find("\n--");
  ASSERT_NE(rule_line, std::string::npos) << stored.r.output;
  std::string id;
  for (std::size_t i = stored.r.output.find('\n', rule_line + 1) + 1;
       i < stored.r.output.size() && std::isdigit(static_cast<unsigned char>(stored.r.output[i])); ++i)
    id += stored.r.output[i];
  ASSERT_FALSE(id.empty()) << stored.r.output;
  const std::string page = html_page({"report", id}, "rejected");
  ASSERT_FALSE(page.empty());
  const auto why = page.find("id=\"why\"");
  ASSERT_NE(why, std::string::npos);
  EXPECT_LT(why, page.find("id=\"correctness\"")) << "the page leads with why";
  EXPECT_NE(page.find("Why rejected: wrong_result"), std::string::npos);
  for (const auto& reason : r["verdict"]["reasons"])
    EXPECT_NE(page.find(xml_escape(reason.get<std::string>())), std::string::npos) << reason;
  const json& fc = failing_case(c);
  ASSERT_TRUE(fc.is_object());
  const std::string why_part = page.substr(why, page.find("</section>", why) - why);
  EXPECT_NE(why_part.find(fc["id"].get<std::string>()), std::string::npos);
  EXPECT_NE(why_part.find("worst element"), std::string::npos);
  EXPECT_NE(why_part.find("allowed there"), std::string::npos);
  EXPECT_NE(why_part.find(fc["seed"].get<std::string>()), std::string::npos);
  EXPECT_EQ(count_of(page, "class=\"forest-mark\""), 0u) << "not timed: no speedup drawn";
}

TEST(Html, EstimateWithoutACiIsAPointWithoutAnInterval) {
  const auto c = eval_of("softmax", candidate("ok_honest_softmax.cpp"), {"--rounds", "3", "--hidden", "2"});
  ASSERT_TRUE(c.result.is_object()) << c.r.output;
  ASSERT_TRUE(c.result["speedup"]["ci95"].is_null()) << c.result["speedup"].dump();
  const std::string page = html_page({"report", write_result(c.result, "estimate")}, "estimate");
  const auto marks = forest_marks_expected(c.result);
  EXPECT_EQ(count_of(page, "class=\"forest-mark\""), marks);
  EXPECT_EQ(count_of(page, "class=\"pt estimate\""), marks + count_of(page, "class=\"forest-total\""));
  EXPECT_EQ(count_of(page, "class=\"ci\""), 0u);
  EXPECT_GE(count_of(page, "estimate, no CI"), marks);
}

// Appends `payload` to every string of the document, and to the keys of its free-form `env`, as a
// candidate able to choose any text it reports would.
void poison(json& j, const std::string& payload) {
  if (j.is_string()) {
    j = j.get<std::string>() + payload;
  } else if (j.is_array() || j.is_object()) {
    for (auto& v : j) poison(v, payload);
  }
  if (j.is_object() && j.contains("env") && j["env"].is_object()) {
    json env = json::object();
    for (auto& [k, v] : j["env"].items()) env[k + payload] = v;
    j["env"] = env;
  }
}

TEST(Html, CandidateStringsCannotBecomeMarkup) {
  // A real candidate whose kj_info() is markup.
  const auto src = test_dir() / "script_info_softmax.cpp";
  {
    std::ofstream out(src);
    out << read_file(candidate("ok_honest_softmax.cpp"))
        << "\nKJ_EXPORT const char* kj_info(void) { return \"family=<script>alert(1)</script>;notes=<img src=x "
           "onerror=alert(2)>\"; }\n";
  }
  const auto c = eval_of("softmax", src.string(), {"--budget", "1", "--hidden", "2"});
  ASSERT_TRUE(c.result.is_object()) << c.r.output;
  ASSERT_NE(c.result["candidate"]["info"].get<std::string>().find("<script>"), std::string::npos);
  const std::string page = html_page({"report", write_result(c.result, "script-info")}, "script-info");
  EXPECT_EQ(count_of(page, "<script"), 0u);
  EXPECT_EQ(count_of(page, "<img"), 0u);
  EXPECT_NE(page.find("family=&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  // Every string of the document, a rejection's reasons and evidence included, made markup.
  for (const std::string& name : {std::string("script-info"), std::string("rejected-poisoned")}) {
    json r = c.result;
    if (name == "rejected-poisoned") {
      r["verdict"] = {{"status", "hack"},
                      {"rule", "stale_output"},
                      {"reasons", {"the output did not change"}},
                      {"evidence", {{"case", r["cases"][0]}, {"probe", "x"}}}};
    }
    const std::string payload = "\"'><script>alert(3)</script><svg onload=alert(4)>";
    poison(r, payload);
    r["schema"] = c.result["schema"];  // what makes it a result document at all
    const std::string p = html_page({"report", write_result(r, name + "-all")}, name + "-all");
    ASSERT_FALSE(p.empty());
    EXPECT_EQ(count_of(p, "<script"), 0u) << name;
    EXPECT_EQ(count_of(p, "<svg onload"), 0u) << name;
    EXPECT_GE(count_of(p, "&lt;script&gt;alert(3)"), 10u) << name;
  }
}

// The loop's page: which family won and when, one point per judged proposal (a cross per
// rejection), one best mark per finished iteration, the families, the beam and every accepted
// improvement with its diff; the markup a proposal chose as its family is text.
TEST(Html, LoopPageTellsWhichFamilyWonAndWhen) {
  const auto dir = html_loop_run("loop-html");
  std::size_t judged = 0, rejected = 0, bests = 0;
  json last_beam, accepts = json::array();
  for (const auto& e : journal_events(dir)) {
    if (e["event"] == "judged") {
      ++judged;
      const std::string st = e["summary"]["status"];
      if (st != "ok_faster" && st != "ok_not_faster") ++rejected;
    }
    if (e["event"] == "beam") {
      last_beam = e;
      if (e["best"].is_object()) ++bests;
      if (e["accept"].is_object()) accepts.push_back(e["accept"]);
    }
  }
  ASSERT_TRUE(last_beam.is_object());
  ASSERT_EQ(judged, 3u);
  ASSERT_EQ(rejected, 1u);
  ASSERT_EQ(accepts.size(), 2u) << "the naive, then the fast softmax";
  const std::string page = html_page({"loop", "report", dir.string()}, "loop-html");
  ASSERT_FALSE(page.empty());
  const json& best = last_beam["best"];
  EXPECT_NE(page.find("Family <strong>" + xml_escape(best["family"].get<std::string>()) +
                      "</strong> won: " + best["id"].get<std::string>()),
            std::string::npos);
  EXPECT_NE(page.find("reached in iteration " + std::to_string(best["iteration"].get<int>())), std::string::npos);
  EXPECT_EQ(count_of(page, "class=\"proposal-mark\""), judged);
  EXPECT_EQ(count_of(page, "class=\"rejected\""), rejected);
  EXPECT_EQ(count_of(page, "class=\"best-mark\""), bests);
  EXPECT_EQ(count_of(page, "class=\"band\""), bests) << "judged with 6 rounds: every best has a CI";
  EXPECT_EQ(count_of(page, "class=\"accept-row\""), accepts.size());
  for (const auto& a : accepts)
    EXPECT_NE(page.find("<details id=\"diff-" + a["id"].get<std::string>() + "\""), std::string::npos) << a;
  EXPECT_GT(count_of(page, "<span class=\"add\">"), 0u);
  EXPECT_GT(count_of(page, "<span class=\"del\">"), 0u) << "the fast softmax against the naive one";
  for (const auto& f : last_beam["families"])
    EXPECT_NE(page.find("<td>" + xml_escape(f["name"].get<std::string>()) + "</td>"), std::string::npos) << f;
  for (const auto& m : last_beam["beam"])
    EXPECT_NE(page.find("<td>" + m["id"].get<std::string>() + "</td>"), std::string::npos) << m;
  EXPECT_EQ(count_of(page, "<script"), 0u);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
}

// A loop stopped in the middle of an iteration (a signal, a time limit) has that iteration's
// proposals judged but no beam event for it; its page still renders, the iteration unfinished.
TEST(Html, LoopPageOfAnInterruptedRunMarksTheIterationUnfinished) {
  const auto dir = html_loop_run("loop-html-interrupted");
  auto events = journal_events(dir);
  const auto last_beam =
      std::find_if(events.rbegin(), events.rend(), [](const json& e) { return e["event"] == "beam"; });
  ASSERT_NE(last_beam, events.rend());
  const int cut = (*last_beam)["iteration"].get<int>();
  events.erase(std::next(last_beam).base(), events.end());
  {
    std::ofstream out(dir / "journal.jsonl", std::ios::trunc);
    for (const auto& e : events) out << e.dump() << "\n";
    out << json{{"event", "stopped"}, {"iteration", cut}, {"reason", "interrupted"}, {"signal", 15}}.dump() << "\n";
  }
  std::size_t judged = 0, bests = 0;
  for (const auto& e : events) {
    judged += e["event"] == "judged" ? 1 : 0;
    bests += e["event"] == "beam" && e["best"].is_object() ? 1 : 0;
  }
  ASSERT_GT(bests, 0u) << "the iterations before the interrupted one";
  const std::string page = html_page({"loop", "report", dir.string()}, "loop-html-interrupted");
  ASSERT_FALSE(page.empty());
  EXPECT_NE(page.find("stopped: interrupted"), std::string::npos);
  EXPECT_NE(page.find("(unfinished)"), std::string::npos);
  EXPECT_EQ(count_of(page, "class=\"proposal-mark\""), judged) << "the unfinished iteration's proposals too";
  EXPECT_EQ(count_of(page, "class=\"best-mark\""), bests) << "none for the unfinished iteration";
}

// A beam entry timed in too few rounds for a CI (the loop's cheap autotune rungs) is an estimate:
// the text report says so and prints no interval. It printed "2.81x [2.81, 2.81]" on 2026-12-07
// (H100, bench/results/h200/2026-12-07-h100-loop-report.txt): the median held twice.
TEST(Html, LoopTextReportPrintsNoIntervalForAnEstimate) {
  const auto dir = html_loop_run("loop-text-estimate");
  auto events = journal_events(dir);
  std::vector<std::string> estimates;
  for (auto& e : events)
    if (e["event"] == "beam" && e["best"].is_object()) {
      json& b = e["best"];
      b["ci95"] = json::array({b["median"], b["median"]});
      b["estimate_only"] = true;
      estimates.push_back(
          fmt::format("{} {:.3g}x (estimate, no CI)", b["id"].get<std::string>(), b["median"].get<double>()));
    }
  ASSERT_FALSE(estimates.empty());
  {
    std::ofstream out(dir / "journal.jsonl", std::ios::trunc);
    for (const auto& e : events) out << e.dump() << "\n";
  }
  const auto r = kjudge({"loop", "report", dir.string()});
  ASSERT_EQ(r.r.exit_status, 0) << r.r.output;
  for (const auto& text : estimates) EXPECT_NE(r.r.output.find(text), std::string::npos) << text << "\n" << r.r.output;
  for (const auto& e : events)
    if (e["event"] == "beam" && e["best"].is_object()) {
      const double m = e["best"]["median"].get<double>();
      EXPECT_EQ(r.r.output.find(fmt::format("[{:.3g}, {:.3g}]", m, m)), std::string::npos) << r.r.output;
    }
}

bool correct(const json& r) {
  const std::string st = r["verdict"]["status"];
  return st == "ok_faster" || st == "ok_not_faster";
}

// "<td>vs NAME</td><td class="num">F0</td>..." as the page writes fast_p at p = 0, 1, 1.5, 2, with
// each value computed here from the documents (KernelBench: correct and speedup > p, over all).
std::string fast_p_row(const std::string& name, const std::vector<json>& rs, double (*speedup)(const json&)) {
  std::string row = "<td>vs " + xml_escape(name) + "</td>";
  for (double p : {0.0, 1.0, 1.5, 2.0}) {
    std::size_t n = 0;
    for (const auto& r : rs) n += correct(r) && speedup(r) > p ? 1 : 0;
    row += "<td class=\"num\">" +
           fmt::format("{:.1f}%", 100.0 * static_cast<double>(n) / static_cast<double>(rs.size())) + "</td>";
  }
  return row;
}

double headline(const json& r) {
  return r["speedup"].is_object() ? r["speedup"]["median"].get<double>() : 0.0;
}

double over_eager(const json& r) {
  return r["speedup"].is_object() ? r["speedup"]["per_baseline"]["torch:eager"]["median"].get<double>() : 0.0;
}

TEST(Html, SetPageHoldsFastPAndOneRowPerResultFastestFirst) {
  const auto dir = test_dir() / "set";
  const auto rs = html_result_set(dir);
  ASSERT_EQ(rs.size(), 3u);
  for (const auto& r : rs) ASSERT_TRUE(r.is_object());
  ASSERT_TRUE(rs[0]["speedup"]["per_baseline"].contains("torch:eager")) << rs[0]["speedup"].dump();
  const std::string page = html_page({"report", dir.string()}, "set");
  ASSERT_FALSE(page.empty());
  EXPECT_EQ(count_of(page, "<tr class=\"result-row "), rs.size());
  // Sortable without a script: three pre-sorted copies of one row per result; slowest first opens
  // with the rejection, which fastest first puts last.
  EXPECT_EQ(count_of(page, "<tr class=\"result-row-alt "), 3 * rs.size());
  const auto slowest = page.find("<div id=\"by-slowest\" class=\"sorted-alt\">");
  ASSERT_NE(slowest, std::string::npos);
  EXPECT_EQ(page.find("<tr class=\"result-row-alt ", slowest),
            page.find("<tr class=\"result-row-alt rejected\">", slowest));
  EXPECT_EQ(count_of(page, "class=\"fastp-curve\""), 2u) << "against eager and the strongest; no compile mode on cpu";
  EXPECT_NE(page.find(fast_p_row("the strongest baseline", rs, headline)), std::string::npos) << page;
  EXPECT_NE(page.find(fast_p_row("eager torch (torch:eager)", rs, over_eager)), std::string::npos);
  EXPECT_NE(page.find("<td>wrong_result</td><td class=\"num\">1</td>"), std::string::npos);
  EXPECT_NE(page.find("<td>tolerance</td><td class=\"num\">1</td>"), std::string::npos);
  // Fastest first: the speedups of the rows never increase, and the rejection comes last.
  std::vector<double> order;
  for (auto p = page.find("class=\"result-mark\""); p != std::string::npos;
       p = page.find("class=\"result-mark\"", p + 1)) {
    const auto m = page.find("data-median=\"", p) + 13;
    order.push_back(std::stod(page.substr(m, page.find('"', m) - m)));
  }
  ASSERT_EQ(order.size(), 2u) << "one mark per timed result";
  EXPECT_GE(order[0], order[1]);
  const auto first_ok =
      std::min(page.find("<tr class=\"result-row ok_faster\">"), page.find("<tr class=\"result-row ok_not_faster\">"));
  EXPECT_LT(page.rfind("<tr class=\"result-row ok_"), page.find("<tr class=\"result-row rejected\">"));
  EXPECT_NE(first_ok, std::string::npos);
  // The same set from the files one by one.
  const std::string again = html_page(
      {"report", (dir / "r2.json").string(), (dir / "r0.json").string(), (dir / "r1.json").string()}, "set-files");
  EXPECT_EQ(count_of(again, "<tr class=\"result-row "), rs.size());
}

}  // namespace
}  // namespace kjudge::test
