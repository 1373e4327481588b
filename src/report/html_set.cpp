// The HTML page of a set of results (report/html.hpp): KernelBench's fast_p against eager torch,
// the strongest torch.compile mode and the strongest baseline; one row per result, fastest first;
// verdicts and rules counted.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "report/detail/result_fields.hpp"
#include "report/html.hpp"
#include "report/report.hpp"
#include "report/svg.hpp"

namespace kjudge {
namespace {

using namespace detail;

constexpr std::string_view k_eager = "torch:eager";
constexpr std::string_view k_compile_prefix = "torch:compile";

// The candidate's speedup over one baseline: the aggregate over cases where the result has one,
// else the single case's.
std::optional<double> speedup_over(const json& r, const std::string& name) {
  if (auto m = number_at(r, {"speedup", "per_baseline", name, "median"})) return m;
  const auto& cases = array_at(r, {"timing", "cases"});
  if (cases.size() != 1) return std::nullopt;
  for (const auto& b : array_at(cases[0], {"baselines"}))
    if (str_or(b, {"name"}, "") == name) return number_at(b, {"speedup", "median"});
  return std::nullopt;
}

std::vector<std::string> baseline_names(const json& r) {
  std::vector<std::string> out;
  for (const auto& b : array_at(r, {"baselines"}))
    if (auto n = string_at(b, {"name"})) out.push_back(*n);
  if (out.empty())
    if (const json* pb = json_at(r, {"speedup", "per_baseline"}); pb != nullptr && pb->is_object())
      for (const auto& [k, v] : pb->items()) out.push_back(k);
  return out;
}

// Against the strongest compile mode: the smallest speedup over any torch.compile baseline.
std::optional<double> speedup_over_compile(const json& r) {
  std::optional<double> out;
  for (const auto& n : baseline_names(r))
    if (n.rfind(k_compile_prefix, 0) == 0)
      if (auto s = speedup_over(r, n)) out = out ? std::min(*out, *s) : *s;
  return out;
}

struct comparison {
  std::string name, css;
  std::vector<std::optional<double>> speedup;  // per result; nullopt: no such figure
  bool any() const {
    return std::any_of(speedup.begin(), speedup.end(), [](const auto& s) { return s.has_value(); });
  }
};

// fast_p (KernelBench): the fraction of all the results that are correct and whose speedup is
// above p; a result without the figure counts as not faster.
double fast_p(const comparison& c, const std::vector<json>& results, double p) {
  if (results.empty()) return 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < results.size(); ++i)
    if (is_ok_status(str_or(results[i], {"verdict", "status"}, "")) && c.speedup[i] && *c.speedup[i] > p) ++n;
  return static_cast<double>(n) / static_cast<double>(results.size());
}

std::vector<comparison> comparisons(const std::vector<json>& results) {
  comparison eager{"eager torch (" + std::string(k_eager) + ")", "c-eager", {}};
  comparison compile{"the strongest torch.compile mode", "c-compile", {}};
  comparison strongest{"the strongest baseline", "c-strongest", {}};
  for (const auto& r : results) {
    eager.speedup.push_back(speedup_over(r, std::string(k_eager)));
    compile.speedup.push_back(speedup_over_compile(r));
    strongest.speedup.push_back(number_at(r, {"speedup", "median"}));
  }
  std::vector<comparison> out;
  for (auto* c : {&eager, &compile, &strongest})
    if (c->any()) out.push_back(std::move(*c));
  return out;
}

std::string fast_p_plot(const std::vector<comparison>& cs, const std::vector<json>& results) {
  double p_max = 2.2;
  for (const auto& c : cs)
    for (const auto& s : c.speedup)
      if (s && std::isfinite(*s)) p_max = std::max(p_max, *s * 1.05);
  const double left = 60, right = 640, top = 12, bottom = 250;
  svg_canvas s(900, bottom + 40, "fastp", "fast_p: fraction of results correct and faster than p");
  svg_axis x{0, p_max, left, right, false}, y{0, 1, bottom, top, false};
  s.y_axis(y, left, right, [](double v) { return fmt::format("{:.0f}%", v * 100); });
  s.x_axis(x, bottom, top, [](double v) { return fixed_sig(v, 2); });
  s.text((left + right) / 2, bottom + 32, "p (speedup threshold)", "tick", "middle");
  for (double p : {1.0, 1.5, 2.0}) s.line(x.map(p), top, x.map(p), bottom, "unity");
  for (std::size_t k = 0; k < cs.size(); ++k) {
    const auto& c = cs[k];
    // A step function: it drops at each result's speedup.
    std::vector<double> breaks{0.0};
    for (const auto& v : c.speedup)
      if (v && *v > 0 && *v < p_max) breaks.push_back(*v);
    std::sort(breaks.begin(), breaks.end());
    std::vector<std::pair<double, double>> pts;
    for (std::size_t i = 0; i < breaks.size(); ++i) {
      const double f = fast_p(c, results, breaks[i]);
      pts.emplace_back(x.map(breaks[i]), y.map(f));
      pts.emplace_back(x.map(i + 1 < breaks.size() ? breaks[i + 1] : p_max), y.map(f));
    }
    s.group("fastp-curve", {{"comparison", c.name}});
    s.path(pts, "curve " + c.css);
    s.end_group();
    const double ly = top + 16 + 18.0 * static_cast<double>(k);
    s.line(right + 16, ly - 4, right + 40, ly - 4, "curve " + c.css);
    s.text(right + 46, ly, "vs " + c.name);
  }
  return s.str();
}

std::string speedup_cell(const std::optional<double>& s) {
  return s ? format_speedup(*s) : "–";
}

std::string fast_p_section(const std::vector<json>& results) {
  const auto cs = comparisons(results);
  std::string out =
      "<section id=\"fastp\">\n<h2>fast_p</h2>\n<p class=\"note\">KernelBench's fast_p: the fraction "
      "of all " +
      std::to_string(results.size()) +
      " results that are correct and whose speedup is above p (a result without that figure counts as "
      "not faster). Against eager torch, against the strongest torch.compile mode (the one the "
      "candidate is least faster than), and against the strongest baseline (the verdict's: per case, "
      "the fastest party).</p>\n";
  if (cs.empty()) return out + "<p>No result carries a speedup.</p>\n</section>\n";
  out += fast_p_plot(cs, results);
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : cs) {
    std::vector<std::string> row{"vs " + c.name};
    for (double p : {0.0, 1.0, 1.5, 2.0}) {
      const double f = fast_p(c, results, p);
      row.push_back(fmt::format("{:.1f}%", f * 100));
    }
    rows.push_back(std::move(row));
  }
  return out +
         html::table({"comparison", "fast_0", "fast_1", "fast_1.5", "fast_2"}, rows, {false, true, true, true, true},
                     {}, "fastp-values") +
         "</section>\n";
}

// One mark per timed result (its headline speedup and CI), fastest first, over the band an A/A
// (`kjudge validate`: the reference judged as a candidate) should fall in.
std::string speedup_section(const std::vector<json>& results) {
  struct row {
    std::string name;
    double median;
    std::optional<std::pair<double, double>> ci;
  };
  std::vector<row> rows;
  for (const auto& r : results)
    if (auto m = number_at(r, {"speedup", "median"}); m && *m > 0)
      rows.push_back({str_or(r, {"problem", "name"}, "?"), *m, ci95(*json_at(r, {"speedup"}))});
  if (rows.empty()) return "";
  std::stable_sort(rows.begin(), rows.end(), [](const row& a, const row& b) { return a.median > b.median; });
  double lo = 0.98, hi = 1.02;
  std::size_t in_band = 0;
  for (const auto& rw : rows) {
    svg_extend(lo, hi, rw.median, true);
    if (rw.ci) {
      svg_extend(lo, hi, rw.ci->first, true);
      svg_extend(lo, hi, rw.ci->second, true);
    }
    in_band += rw.median >= 0.98 && rw.median <= 1.02 ? 1 : 0;
  }
  const double left = 330, right = 700, row_h = 14, top = 22;
  const double axis_y = top + row_h * static_cast<double>(rows.size()) + 4;
  svg_canvas s(900, axis_y + 24, "results-forest", "speedup of each result with its 95% CI, log scale");
  svg_axis ax{lo / 1.1, hi * 1.1, left, right, true};
  s.rect(ax.map(0.98), top - 6, ax.map(1.02) - ax.map(0.98), axis_y - top + 6, "band", "the A/A band [0.98, 1.02]");
  s.text(ax.map(1.0), top - 10, "A/A band [0.98, 1.02]", "note", "middle");
  s.x_axis(ax, axis_y, top - 6, [](double v) { return format_speedup(v); });
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& rw = rows[i];
    const double y = top + row_h * (static_cast<double>(i) + 0.5);
    const std::string text =
        format_speedup(rw.median) +
        (rw.ci ? fmt::format(" [{}, {}]", fixed_sig(rw.ci->first), fixed_sig(rw.ci->second)) : " estimate, no CI");
    s.group("result-mark", {{"problem", rw.name}, {"median", fmt::format("{:.6g}", rw.median)}});
    s.text(left - 8, y + 4, rw.name.size() > 48 ? rw.name.substr(0, 47) + "…" : rw.name, "", "end");
    if (rw.ci) s.line(ax.map(rw.ci->first), y, ax.map(rw.ci->second), y, "ci");
    s.circle(ax.map(rw.median), y, 3, rw.ci ? "pt" : "pt estimate", rw.name + ": " + text);
    s.text(right + 10, y + 4, text, rw.ci ? "" : "note");
    s.end_group();
  }
  return "<section id=\"speedups\">\n<h2>Speedup per result</h2>\n<p>" +
         xml_escape(fmt::format("{} of {} timed results have a speedup in [0.98, 1.02], the band an A/A (kjudge "
                                "validate: the reference judged as a candidate) should fall in.",
                                in_band, rows.size())) +
         "</p>\n" + s.str() + "</section>\n";
}

std::string counts_section(const std::vector<json>& results) {
  std::map<std::string, int> verdicts, rules;
  for (const auto& r : results) {
    ++verdicts[str_or(r, {"verdict", "status"}, "unknown")];
    if (auto rule = string_at(r, {"verdict", "rule"})) ++rules[*rule];
  }
  std::vector<std::vector<std::string>> vrows, rrows;
  std::vector<std::string> vcls;
  for (const auto& [v, n] : verdicts) {
    vrows.push_back({v, std::to_string(n)});
    vcls.push_back(is_ok_status(v) ? v : "rejected");
  }
  for (const auto& [k, n] : rules) rrows.push_back({k, std::to_string(n)});
  std::string out = "<section id=\"verdicts\">\n<h2>Verdicts and rules</h2>\n" +
                    html::table({"verdict", "results"}, vrows, {false, true}, vcls, "verdict-counts");
  if (!rrows.empty()) out += html::table({"rule", "results"}, rrows, {false, true}, {}, "rule-counts");
  return out + "</section>\n";
}

// The speedup a result sorts by: its headline median where it is correct, -1 where it was rejected
// (a rejected candidate is slower than any correct one).
double sort_speedup(const json& r) {
  auto s = number_at(r, {"speedup", "median"});
  return s && is_ok_status(str_or(r, {"verdict", "status"}, "")) ? *s : -1.0;
}

// The results table in `order`; `row_class` prefixes each row's class (its verdict follows).
std::string results_table(const std::vector<json>& results, const std::vector<std::string>& labels,
                          const std::vector<std::size_t>& order, const std::string& row_class) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> cls;
  for (std::size_t i : order) {
    const json& r = results[i];
    const std::string status = str_or(r, {"verdict", "status"}, "unknown");
    std::string speed = "–";
    if (const json* s = json_at(r, {"speedup"})) speed = speedup_with_ci(*s);
    std::string evidence;
    if (!is_ok_status(status) && !array_at(r, {"verdict", "reasons"}).empty())
      evidence = scalar_text(array_at(r, {"verdict", "reasons"})[0]);
    rows.push_back({str_or(r, {"problem", "name"}, "?"), str_or(r, {"problem", "dtype"}, "–"),
                    str_or(r, {"device"}, "–"), status, str_or(r, {"verdict", "rule"}, "–"), speed,
                    speedup_cell(speedup_over(r, std::string(k_eager))), speedup_cell(speedup_over_compile(r)),
                    evidence.size() > 200 ? evidence.substr(0, 200) + "…" : evidence,
                    i < labels.size() ? labels[i] : ""});
    cls.push_back(row_class + " " + (is_ok_status(status) ? status : std::string("rejected")));
  }
  return html::table({"problem", "dtype", "device", "verdict", "rule", "speedup [95% CI]", "vs eager",
                      "vs best compile", "why rejected", "from"},
                     rows, {false, false, false, false, false, true, true, true, false, false}, cls, "results");
}

// One table per order, sortable without a script: the links target a pre-sorted copy, which CSS
// shows in place of the default (fastest first) while it is the URL's fragment. The copies' rows
// are "result-row-alt", so the default table alone holds one "result-row" per result.
std::string results_section(const std::vector<json>& results, const std::vector<std::string>& labels) {
  std::vector<std::size_t> fastest(results.size());
  for (std::size_t i = 0; i < fastest.size(); ++i) fastest[i] = i;
  std::stable_sort(fastest.begin(), fastest.end(),
                   [&](std::size_t a, std::size_t b) { return sort_speedup(results[a]) > sort_speedup(results[b]); });
  const std::vector<std::size_t> slowest(fastest.rbegin(), fastest.rend());
  auto by_text = [&](std::initializer_list<std::string_view> keys) {
    std::vector<std::size_t> order = fastest;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return str_or(results[a], keys, "") < str_or(results[b], keys, "");
    });
    return order;
  };
  std::string out =
      "<section id=\"results\">\n<h2>Results</h2>\n<p class=\"sort\">Sort: <a href=\"#results\">fastest first</a> · "
      "<a href=\"#by-slowest\">slowest first</a> · <a href=\"#by-problem\">problem</a> · "
      "<a href=\"#by-verdict\">verdict</a></p>\n";
  const std::vector<std::pair<std::string, std::vector<std::size_t>>> alternates{
      {"by-slowest", slowest},
      {"by-problem", by_text({"problem", "name"})},
      {"by-verdict", by_text({"verdict", "status"})}};
  for (const auto& [id, order] : alternates)
    out += "<div id=\"" + id + "\" class=\"sorted-alt\">\n" + results_table(results, labels, order, "result-row-alt") +
           "</div>\n";
  return out + "<div class=\"sorted-default\">\n" + results_table(results, labels, fastest, "result-row") +
         "</div>\n</section>\n";
}

}  // namespace

std::string render_html_set(const std::vector<nlohmann::json>& results, const std::vector<std::string>& labels) {
  std::map<std::string, int> problems, devices;
  for (const auto& r : results) {
    ++problems[str_or(r, {"problem", "name"}, "?")];
    ++devices[str_or(r, {"device"}, "?")];
  }
  std::string devs;
  for (const auto& [d, n] : devices) devs += (devs.empty() ? "" : ", ") + fmt::format("{} on {}", n, d);
  std::string body = "<header>\n<h1>kjudge: " + std::to_string(results.size()) + " results</h1>\n" +
                     html::facts({{"problems", std::to_string(problems.size())}, {"devices", devs}}) + "</header>\n";
  body +=
      fast_p_section(results) + counts_section(results) + speedup_section(results) + results_section(results, labels);
  return html::page(fmt::format("kjudge: {} results", results.size()), body);
}

}  // namespace kjudge
