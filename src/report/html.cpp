// The HTML page of one evaluation (report/html.hpp). Sections in reading order: what was judged
// and the verdict; for a rejection, why; the speedup per case and baseline (a forest plot); the
// timing table; each party's samples; the fraction of the speed of light; memory; correctness;
// the kernel census; build; environment.
#include "report/html.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>

#include "report/detail/html_parts.hpp"
#include "report/detail/result_fields.hpp"
#include "report/report.hpp"
#include "report/svg.hpp"

namespace kjudge {
namespace {

using namespace detail;
using rows_t = std::vector<std::vector<std::string>>;

std::string esc(std::string_view s) {
  return xml_escape(s);
}

std::string count_text(const json& j, std::string_view key) {
  auto v = number_at(j, {key});
  return v ? fmt::format("{}", static_cast<long long>(*v)) : std::string("–");
}

std::string speedup_tick(double v) {
  return format_speedup(v);
}
// Axis labels need a digit more than the tables: ticks 5 us apart around 1.78 ms stay distinct.
std::string seconds_tick(double v) {
  if (v <= 0) return "0";
  if (v >= 1) return fmt::format("{:.4g} s", v);
  if (v >= 1e-3) return fmt::format("{:.4g} ms", v * 1e3);
  if (v >= 1e-6) return fmt::format("{:.4g} us", v * 1e6);
  return fmt::format("{:.4g} ns", v * 1e9);
}
std::string percent_tick(double v) {
  return fmt::format("{:.0f}%", v * 100.0);
}

// ---- header and verdict ----

std::string header_section(const json& r) {
  const std::string status = str_or(r, {"verdict", "status"}, "unknown");
  std::string title = str_or(r, {"problem", "name"}, "?");
  if (auto d = string_at(r, {"problem", "dtype"})) title += " " + *d;
  title += " on " + str_or(r, {"device"}, str_or(r, {"problem", "device"}, "?"));
  std::string out = "<header>\n<h1>" + esc(title) + " — " + html::verdict_badge(status);
  if (auto rule = string_at(r, {"verdict", "rule"}))
    out += " <span class=\"rule\">rule <code>" + esc(*rule) + "</code></span>";
  out += "</h1>\n";
  std::vector<std::pair<std::string, std::string>> f;
  f.emplace_back("candidate", str_or(r, {"candidate", "path"}, "–"));
  if (auto sha = string_at(r, {"candidate", "sha256"})) f.emplace_back("sha256", *sha);
  if (auto info = string_at(r, {"candidate", "info"}); info && !info->empty()) f.emplace_back("kj_info()", *info);
  if (const json* s = json_at(r, {"speedup"}); s != nullptr && number_at(*s, {"median"})) {
    std::string sp = speedup_with_ci(*s) + " vs " + str_or(*s, {"baseline"}, "?");
    if (ci95(*s))
      sp += " (95% CI)";
    else
      sp += " (an estimate, no CI: " + str_or(*s, {"estimate_only"}, "too few rounds") + ")";
    if (is_true(*s, "geomean_over_cases")) sp += ", geometric mean over cases";
    f.emplace_back("speedup", sp);
  }
  if (json_at(r, {"timing"}) != nullptr)
    f.emplace_back("timing mode", str_or(r, {"timing", "mode"}, "–"));
  else
    f.emplace_back("timing", "not timed");
  f.emplace_back("correctness", cases_sentence(r));
  std::string created = str_or(r, {"created_at"}, "–");
  if (auto v = string_at(r, {"kjudge_version"})) created += ", kjudge " + *v;
  f.emplace_back("created", created);
  if (auto t = number_at(r, {"time_to_verdict_s"})) f.emplace_back("time to verdict", format_seconds(*t));
  return out + html::facts(f) + "</header>\n";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> detail::failing_case_facts(const json& c) {
  std::vector<std::pair<std::string, std::string>> f;
  f.emplace_back("case", case_label(c));
  if (auto k = string_at(c, {"kind"})) f.emplace_back("kind", *k);
  std::string dist = str_or(c, {"distribution"}, "–");
  if (auto seed = string_at(c, {"seed"})) dist += ", seed " + *seed;
  f.emplace_back("inputs", dist);
  f.emplace_back("status", str_or(c, {"status"}, "fail"));
  if (auto o = string_at(c, {"output"})) f.emplace_back("output", *o);
  if (auto m = string_at(c, {"message"})) f.emplace_back("message", *m);
  if (auto e = case_errors_text(c)) f.emplace_back("errors", *e);
  if (auto w = worst_text(c)) f.emplace_back("worst element", *w);
  if (auto a = number_at(c, {"worst", "allowed"})) f.emplace_back("allowed there", err_text(a));
  if (auto e = envelope_text(c)) f.emplace_back("the envelope", *e);
  return f;
}

std::string detail::why_opening(std::string_view lead, const json& verdict) {
  std::string out = "<section id=\"why\" class=\"why\">\n<h2>Why rejected: " + esc(lead) +
                    esc(str_or(verdict, {"status"}, "unknown"));
  if (auto rule = string_at(verdict, {"rule"})) out += ", rule <code>" + esc(*rule) + "</code>";
  out += "</h2>\n";
  if (const auto& reasons = array_at(verdict, {"reasons"}); !reasons.empty()) {
    out += "<ul class=\"reasons\">\n";
    for (const auto& reason : reasons) out += "<li>" + esc(scalar_text(reason)) + "</li>\n";
    out += "</ul>\n";
  }
  return out;
}

namespace {

std::string why_section(const json& r) {
  std::string out = why_opening("", r.contains("verdict") ? r["verdict"] : json());
  if (const json* c = first_failing_case(r)) out += "<h3>Failing case</h3>\n" + html::facts(failing_case_facts(*c));
  // The rule's evidence other than the case, verbatim: it is free-form per rule.
  if (const json* ev = json_at(r, {"verdict", "evidence"}); ev != nullptr) {
    json rest = *ev;
    if (rest.is_object()) rest.erase("case");
    if (!(rest.is_object() && rest.empty()))
      out += "<h3>The rule's evidence</h3>\n<pre class=\"evidence\">" +
             esc(rest.dump(2, ' ', false, json::error_handler_t::replace)) + "</pre>\n";
  }
  return out + "</section>\n";
}

// ---- speedup forest plot ----

std::vector<forest_row> forest_rows(const json& r) {
  std::vector<forest_row> rows;
  const std::string rounds_note = "estimate, no CI";
  for (const auto& t : array_at(r, {"timing", "cases"})) {
    const auto cand = number_at(t, {"candidate", "median_s"});
    const auto strongest = string_at(t, {"strongest"});
    for (const auto& b : array_at(t, {"baselines"})) {
      forest_row fr{case_label(t), str_or(b, {"name"}, "?")};
      fr.strongest = strongest && *strongest == fr.baseline;
      if (const json* sp = json_at(b, {"speedup"}); sp != nullptr && number_at(*sp, {"median"})) {
        fr.median = *number_at(*sp, {"median"});
        fr.ci = ci95(*sp);
        if (!fr.ci) fr.estimate = rounds_note;
      } else if (auto bm = number_at(b, {"median_s"}); bm && cand && *cand > 0) {
        fr.median = *bm / *cand;
        fr.estimate = "ratio of medians, no CI";
      } else {
        continue;
      }
      rows.push_back(std::move(fr));
    }
  }
  if (const json* pb = json_at(r, {"speedup", "per_baseline"}); pb != nullptr && pb->is_object())
    for (const auto& [name, sp] : pb->items()) {
      auto m = number_at(sp, {"median"});
      if (!m) continue;
      forest_row fr{"geometric mean over cases", name, *m, ci95(sp)};
      fr.total = true;
      fr.strongest = false;
      if (!fr.ci) fr.estimate = rounds_note;
      rows.push_back(std::move(fr));
    }
  return rows;
}

}  // namespace

// A case's rows under a line of their own that names it, so that the baselines' names (up to
// "torch:compile:max-autotune-no-cudagraphs (strongest)") have the whole left margin.
std::string detail::forest_plot(const std::vector<forest_row>& rows) {
  const double left = 370, right = 720, row_h = 20, top = 24;
  std::vector<double> y_of(rows.size());
  double y = top;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i == 0 || rows[i].case_label != rows[i - 1].case_label) y += row_h;
    y_of[i] = y + row_h / 2;
    y += row_h;
  }
  const double axis_y = y + 4;
  double lo = 1.0, hi = 1.0;
  for (const auto& f : rows) {
    svg_extend(lo, hi, f.median, true);
    if (f.ci) {
      svg_extend(lo, hi, f.ci->first, true);
      svg_extend(lo, hi, f.ci->second, true);
    }
  }
  svg_axis ax{lo / 1.15, hi * 1.15, left, right, true};
  svg_canvas s(900, axis_y + 26, "forest", "speedup of the candidate per case and baseline, log scale, 95% CI");
  s.x_axis(ax, axis_y, top - 10, speedup_tick);
  s.line(ax.map(1.0), top - 10, ax.map(1.0), axis_y, "unity");
  s.text(ax.map(1.0), top - 12, "1x: as fast", "note", "middle");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& f = rows[i];
    if (i == 0 || f.case_label != rows[i - 1].case_label) s.text(8, y_of[i] - row_h + 4, f.case_label, "label-strong");
    std::string text_ci =
        format_speedup(f.median) +
        (f.ci ? fmt::format(" [{}, {}]", fixed_sig(f.ci->first), fixed_sig(f.ci->second)) : "  " + f.estimate);
    s.group(f.total ? "forest-total" : "forest-mark",
            {{"case", f.case_label}, {"baseline", f.baseline}, {"median", fmt::format("{:.6g}", f.median)}});
    s.text(left - 8, y_of[i] + 4, f.baseline + (f.strongest ? " (strongest)" : ""), f.strongest ? "label-strong" : "",
           "end");
    if (f.ci) s.line(ax.map(f.ci->first), y_of[i], ax.map(f.ci->second), y_of[i], "ci");
    // Hollow wherever there is no interval, the geometric means included.
    const std::string cls = !f.estimate.empty() ? "pt estimate"
                            : f.total           ? "pt total"
                            : f.strongest       ? "pt strongest"
                                                : "pt";
    s.circle(ax.map(f.median), y_of[i], f.strongest || f.total ? 5 : 4, cls, f.baseline + ": " + text_ci);
    s.text(right + 10, y_of[i] + 4, text_ci, f.estimate.empty() ? "" : "note");
    s.end_group();
  }
  return s.str();
}

namespace {

std::string forest_section(const json& r) {
  const auto rows = forest_rows(r);
  if (rows.empty()) return "";
  return "<section id=\"speedup\">\n<h2>Speedup per case and baseline</h2>\n<p class=\"note\">The candidate's "
         "speedup over each baseline (baseline time / candidate time; right of the dashed line is faster), the "
         "median of per-round paired ratios with its 95% bootstrap CI as a line. A hollow point has no interval: an "
         "estimate from too few rounds. The strongest baseline of a case (its fastest) is the one the verdict "
         "compares with; log scale.</p>\n" +
         forest_plot(rows) + "</section>\n";
}

// ---- timing table ----

std::vector<std::string> party_row(const std::string& name, const json& s, const json* cand) {
  std::string ratio = "–";
  if (const json* sp = json_at(s, {"speedup"}); sp != nullptr && number_at(*sp, {"median"}))
    ratio = speedup_with_ci(*sp);
  else if (auto m = number_at(s, {"median_s"});
           cand != nullptr && m && number_at(*cand, {"median_s"}) && *number_at(*cand, {"median_s"}) > 0)
    ratio = format_speedup(*m / *number_at(*cand, {"median_s"}));
  return {name,
          seconds_text(s, "median_s"),
          spread_text(s).value_or("–"),
          seconds_text(s, "q25_s"),
          seconds_text(s, "q75_s"),
          seconds_text(s, "min_s"),
          seconds_text(s, "max_s"),
          count_text(s, "n"),
          ratio};
}

std::string timing_section(const json& r) {
  const json* timing = json_at(r, {"timing"});
  if (timing == nullptr) return "";
  std::vector<std::string> facts;
  facts.push_back("mode " + str_or(*timing, {"mode"}, "?"));
  if (auto c = string_at(*timing, {"clock"})) facts.push_back("clock " + *c);
  if (auto n = number_at(*timing, {"rounds"})) facts.push_back(fmt::format("{} rounds", static_cast<long long>(*n)));
  if (std::string note = process_spread_note(r); !note.empty()) facts.push_back(note);
  std::string out = "<section id=\"timing\">\n<h2>Timing</h2>\n<p>" + esc(fmt::format("{}", fmt::join(facts, ", "))) +
                    ". Median of per-round medians per party; ± is half the interquartile range relative to the "
                    "median; n the samples kept. \"vs candidate\" is the candidate's speedup over that party.</p>\n";
  rows_t rows;
  std::vector<std::string> cls;
  for (const auto& t : array_at(*timing, {"cases"})) {
    const json* cand = json_at(t, {"candidate"});
    const auto strongest = string_at(t, {"strongest"});
    if (cand != nullptr) {
      auto row = party_row("candidate", *cand, nullptr);
      row.back() = "–";
      row.insert(row.begin(), case_label(t));
      rows.push_back(std::move(row));
      cls.emplace_back("candidate");
    }
    for (const auto& b : array_at(t, {"baselines"})) {
      std::string name = str_or(b, {"name"}, "?");
      const bool is_strongest = strongest && name == *strongest;
      if (is_strongest) name += " (strongest)";
      auto row = party_row(name, b, cand);
      row.insert(row.begin(), case_label(t));
      rows.push_back(std::move(row));
      cls.emplace_back(is_strongest ? "strongest" : "");
    }
  }
  out += html::table({"case", "party", "median", "±", "q25", "q75", "min", "max", "n", "vs candidate [95% CI]"}, rows,
                     {false, false, true, true, true, true, true, true, true, true}, cls, "timing");
  return out + "</section>\n";
}

// ---- sample distributions ----

}  // namespace

// One box per party: whiskers min to max, the box q25 to q75, the median as a bar, each round's
// median as a dot (the statistic the speedup's CI resamples).
std::string detail::box_plot(const json& t, const std::vector<party_samples>& parties, const std::string& mode) {
  const double left = 190, right = 700, row_h = 30, top = 10;
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& p : parties)
    for (const char* k : {"min_s", "max_s", "median_s"})
      if (auto v = number_at(*p.s, {k})) svg_extend(lo, hi, *v, true);
  if (!(hi > 0)) return "";
  // A log scale where the parties differ by more than 10x, so that both stay readable.
  const bool log = hi / lo > 10;
  const double pad = (hi - lo) * 0.05 + hi * 1e-6;
  svg_axis ax = log ? svg_axis{lo / 1.1, hi * 1.1, left, right, true}
                    : svg_axis{std::max(0.0, lo - pad), hi + pad, left, right, false};
  const double axis_y = top + row_h * static_cast<double>(parties.size()) + 4;
  svg_canvas s(900, axis_y + 24, "boxes", "samples per party, " + case_label(t) + ", " + mode);
  s.x_axis(ax, axis_y, top, seconds_tick);
  for (std::size_t i = 0; i < parties.size(); ++i) {
    const auto& p = parties[i];
    const double y = top + row_h * (static_cast<double>(i) + 0.5);
    s.group("box-mark", {{"case", str_or(t, {"id"}, "?")}, {"party", p.name}, {"mode", mode}});
    s.text(left - 8, y + 4, p.name, p.candidate ? "label-strong" : "", "end");
    auto mn = number_at(*p.s, {"min_s"}), mx = number_at(*p.s, {"max_s"}), q1 = number_at(*p.s, {"q25_s"}),
         q3 = number_at(*p.s, {"q75_s"}), md = number_at(*p.s, {"median_s"});
    if (mn && mx) s.line(ax.map(*mn), y, ax.map(*mx), y, "whisker");
    if (q1 && q3)
      s.rect(ax.map(*q1), y - 8, ax.map(*q3) - ax.map(*q1), 16, p.candidate ? "box candidate" : "box",
             fmt::format("{}: q25 {}, q75 {}", p.name, format_seconds(*q1), format_seconds(*q3)));
    for (const auto& rm : array_at(*p.s, {"round_medians_s"}))
      if (rm.is_number()) s.circle(ax.map(rm.get<double>()), y - 11, 1.8, "round");
    if (md) {
      s.line(ax.map(*md), y - 8, ax.map(*md), y + 8, "median");
      s.text(right + 10, y + 4, format_seconds(*md) + (spread_text(*p.s) ? " " + *spread_text(*p.s) : ""));
    }
    s.end_group();
  }
  return s.str();
}

namespace {

std::string distribution_section(const json& r) {
  const auto& tcases = array_at(r, {"timing", "cases"});
  if (tcases.empty()) return "";
  const std::string mode = str_or(r, {"timing", "mode"}, str_or(r, {"mode"}, "?"));
  std::string out = "<section id=\"samples\">\n<h2>Samples per case (" + esc(mode) +
                    ")</h2>\n<p class=\"note\">Each party's samples of one case, measured " + esc(mode) +
                    ": whiskers from the fastest to the slowest sample, the box from the first to the third quartile, "
                    "the bar at the median; the dots above are each round's median.</p>\n";
  for (const auto& t : tcases) {
    std::vector<party_samples> parties;
    if (const json* c = json_at(t, {"candidate"})) parties.push_back({"candidate", c, true});
    for (const auto& b : array_at(t, {"baselines"})) parties.push_back({str_or(b, {"name"}, "?"), &b, false});
    out += "<h3>" + esc(case_label(t)) + "</h3>\n" + box_plot(t, parties, mode);
  }
  return out + "</section>\n";
}

// ---- speed of light ----

struct ceiling_bar {
  std::string label, kind, text;
  double fraction;
};

std::vector<ceiling_bar> ceiling_bars(const json& r) {
  std::vector<ceiling_bar> bars;
  for (const auto& t : array_at(r, {"timing", "cases"})) {
    const json* a = json_at(t, {"achieved"});
    if (a == nullptr) continue;
    if (auto f = number_at(*a, {"fraction_of_ceiling"})) {
      std::string text = percent(*f) + " of the copy ceiling";
      if (auto g = number_at(*a, {"gbps"})) text = fixed_sig(*g) + " GB/s, " + text;
      if (auto c = number_at(*a, {"ceiling_gbps"})) text += " (" + fixed_sig(*c) + " GB/s)";
      bars.push_back({case_label(t), "copy", text, *f});
    }
    // A compute ceiling, where the result carries one (GFLOP/s measured for the device).
    if (auto c = number_at(*a, {"ceiling_gflops"}); c && *c > 0 && number_at(*a, {"gflops"})) {
      const double f = *number_at(*a, {"gflops"}) / *c;
      bars.push_back({case_label(t), "compute",
                      fixed_sig(*number_at(*a, {"gflops"})) + " GFLOP/s, " + percent(f) + " of the compute ceiling (" +
                          fixed_sig(*c) + " GFLOP/s)",
                      f});
    }
  }
  return bars;
}

std::string ceiling_section(const json& r) {
  const auto bars = ceiling_bars(r);
  std::vector<std::string> no_ceiling;
  for (const auto& t : array_at(r, {"timing", "cases"}))
    if (number_at(t, {"achieved", "gbps"}) && !number_at(t, {"achieved", "fraction_of_ceiling"}))
      no_ceiling.push_back(case_label(t) + ": " + fixed_sig(*number_at(t, {"achieved", "gbps"})) + " GB/s");
  if (bars.empty() && no_ceiling.empty()) return "";
  std::string out =
      "<section id=\"ceiling\">\n<h2>Fraction of the speed of light</h2>\n<p class=\"note\">The bytes the cost "
      "model says the problem must move, over the candidate's median time, against the device's measured copy "
      "ceiling (<code>kjudge doctor</code>); the compute ceiling where the result carries one.</p>\n";
  if (!bars.empty()) {
    double hi = 1.0;
    for (const auto& b : bars) hi = std::max(hi, b.fraction);
    const double left = 190, right = 600, row_h = 24, top = 8;
    const double axis_y = top + row_h * static_cast<double>(bars.size()) + 2;
    svg_canvas s(900, axis_y + 24, "ceiling", "fraction of the copy ceiling per case");
    svg_axis ax{0, hi * 1.05, left, right, false};
    s.x_axis(ax, axis_y, top, percent_tick);
    for (std::size_t i = 0; i < bars.size(); ++i) {
      const auto& b = bars[i];
      const double y = top + row_h * static_cast<double>(i);
      s.group("ceiling-mark",
              {{"case", b.label}, {"ceiling", b.kind}, {"fraction", fmt::format("{:.4g}", b.fraction)}});
      s.text(left - 8, y + 16, b.label + (b.kind == "compute" ? " (compute)" : ""), "", "end");
      s.rect(left, y + 4, ax.map(1.0) - left, row_h - 8, "bar-bg");
      s.rect(left, y + 4, ax.map(b.fraction) - left, row_h - 8, b.kind == "compute" ? "bar compute" : "bar", b.text);
      s.text(right + 10, y + 16, b.text);
      s.end_group();
    }
    out += s.str();
  }
  if (!no_ceiling.empty())
    out += "<p>No ceiling measured on this machine; achieved: " + esc(fmt::format("{}", fmt::join(no_ceiling, "; "))) +
           ".</p>\n";
  return out + "</section>\n";
}

// ---- memory ----

std::string memory_section(const json& r) {
  std::vector<std::pair<std::string, double>> parties;
  if (auto c = number_at(r, {"memory", "candidate_peak_bytes"})) parties.emplace_back("candidate", *c);
  if (auto b = number_at(r, {"memory", "baseline_peak_bytes"})) parties.emplace_back("strongest baseline", *b);
  if (parties.empty()) return "";
  double hi = 1;
  for (const auto& p : parties) hi = std::max(hi, p.second);
  const double left = 190, right = 600, row_h = 26;
  svg_canvas s(900, row_h * static_cast<double>(parties.size()) + 8, "memory", "peak memory of one call per party");
  svg_axis ax{0, hi, left, right, false};
  rows_t rows;
  for (std::size_t i = 0; i < parties.size(); ++i) {
    const auto& [name, bytes] = parties[i];
    const double y = row_h * static_cast<double>(i);
    s.group("memory-mark", {{"party", name}, {"bytes", fmt::format("{:.0f}", bytes)}});
    s.text(left - 8, y + 18, name, "", "end");
    s.rect(left, y + 5, ax.map(bytes) - left, row_h - 8, name == "candidate" ? "bar candidate" : "bar",
           format_bytes(bytes));
    s.text(ax.map(bytes) + 8, y + 18, format_bytes(bytes));
    s.end_group();
    rows.push_back({name, format_bytes(bytes), fmt::format("{:.0f}", bytes)});
  }
  std::string out = "<section id=\"memory\">\n<h2>Peak memory of one call</h2>\n" + s.str() +
                    html::table({"party", "peak", "bytes"}, rows, {false, true, true});
  if (parties.size() == 2 && parties[1].second > 0)
    out += "<p>Candidate / baseline: " + esc(format_speedup(parties[0].second / parties[1].second)) + ".</p>\n";
  return out + "</section>\n";
}

// ---- correctness ----

std::string correctness_section(const json& r) {
  std::string out = "<section id=\"correctness\">\n<h2>Correctness</h2>\n<p>" + esc(cases_sentence(r));
  if (auto rc = rechecks_sentence(r)) out += "; " + esc(*rc);
  out += ".</p>\n";
  if (const json* tol = json_at(r, {"tolerance"})) {
    std::vector<std::string> parts;
    for (const char* k : {"rtol", "atol", "k"})
      if (auto v = number_at(*tol, {k})) parts.push_back(fmt::format("{} {}", k, err_text(v)));
    if (const json* tf = json_at(*tol, {"tf32"}); tf != nullptr && tf->is_boolean())
      parts.emplace_back(tf->get<bool>() ? "TF32 permitted" : "TF32 not permitted");
    if (!parts.empty())
      out += "<p>Tolerance: " + esc(fmt::format("{}", fmt::join(parts, ", "))) +
             "; element bound max(atol + rtol·|ref|, k·|ref_same − ref|), ref in float64.</p>\n";
  }
  rows_t rows;
  std::vector<std::string> cls;
  for (const auto& c : array_at(r, {"cases"})) {
    rows.push_back({str_or(c, {"id"}, "?"), str_or(c, {"kind"}, "–"), str_or(c, {"shape"}, "–"),
                    str_or(c, {"distribution"}, "–"), str_or(c, {"seed"}, "–"), str_or(c, {"status"}, "–"),
                    err_text(number_at(c, {"max_abs_err"})), err_text(number_at(c, {"max_rel_err"})),
                    err_text(number_at(c, {"norm_rel_err"})), count_text(c, "n_bad"), count_text(c, "n_unwritten"),
                    str_or(c, {"message"}, "")});
    cls.push_back(str_or(c, {"status"}, ""));
  }
  if (!rows.empty())
    out += html::table({"case", "kind", "shape", "distribution", "seed", "status", "max abs err", "max rel err",
                        "norm rel err", "bad", "unwritten", "message"},
                       rows, {false, false, false, false, false, false, true, true, true, true, true, false}, cls,
                       "cases");
  return out + "</section>\n";
}

// ---- kernel census, build, environment ----

std::string census_section(const json& r) {
  const json* census = json_at(r, {"timing", "kernel_census"});
  if (census == nullptr) return "";
  std::string out = "<section id=\"census\">\n<h2>Kernel census</h2>\n";
  if (auto m = string_at(*census, {"method"})) out += "<p class=\"note\">" + esc(*m) + "</p>\n";
  const auto lines = kernel_census_lines(*census);
  if (!lines.empty()) {
    out += "<ul>\n";
    for (const auto& l : lines) out += "<li>" + esc(l) + "</li>\n";
    out += "</ul>\n";
  }
  rows_t rows;
  for (const auto& set : array_at(*census, {"sets"})) {
    const std::string set_no = fmt::format("{}", static_cast<long long>(number_at(set, {"set"}).value_or(0)));
    const json* parties = json_at(set, {"parties"});
    if (parties == nullptr || !parties->is_object()) continue;
    for (const auto& [party, cases] : parties->items()) {
      if (!cases.is_object()) continue;
      for (const auto& [cid, entry] : cases.items()) {
        const json& e = entry;  // a lambda may not capture a structured binding in C++17 tools
        auto ms = [&](std::string_view k) {
          auto v = number_at(e, {k});
          return v ? fmt::format("{:.3f} ms", *v / 1e6) : std::string("–");
        };
        std::string top;
        if (const auto& by = array_at(e, {"by_name"}); !by.empty()) top = str_or(by[0], {"name"}, "");
        rows.push_back({set_no, party, cid, count_text(e, "kernels"), ms("kernel_ns"), ms("window_ns"),
                        string_at(e, {"error"}) ? *string_at(e, {"error"}) : top});
      }
    }
  }
  if (!rows.empty())
    out += html::table({"set", "party", "case", "kernels", "in kernels", "window", "longest kernel (or error)"}, rows,
                       {false, false, false, true, true, true, false}, {}, "census");
  return out + "</section>\n";
}

std::string build_section(const json& r) {
  const json* b = json_at(r, {"build"});
  if (b == nullptr) return "";
  std::vector<std::pair<std::string, std::string>> f;
  if (auto c = string_at(*b, {"compiler"})) f.emplace_back("compiler", *c);
  if (auto fl = string_at(*b, {"flags"})) f.emplace_back("flags", *fl);
  if (const json* cmd = json_at(*b, {"command"})) {
    std::string text;
    if (cmd->is_array())
      for (const auto& a : *cmd) text += (text.empty() ? "" : " ") + scalar_text(a);
    else
      text = scalar_text(*cmd);
    f.emplace_back("command", text);
  }
  if (auto s = number_at(*b, {"seconds"})) f.emplace_back("time", format_seconds(*s));
  if (const json* cached = json_at(*b, {"cached"}); cached != nullptr && cached->is_boolean())
    f.emplace_back("cached", cached->get<bool>() ? "yes" : "no");
  std::string out = "<section id=\"build\">\n<h2>Build</h2>\n" + html::facts(f);
  rows_t rows;
  for (const auto& k : array_at(*b, {"resources"}))
    rows.push_back({str_or(k, {"kernel"}, "?"), count_text(k, "registers"), count_text(k, "spill_stores"),
                    count_text(k, "spill_loads"), count_text(k, "shared_bytes"), count_text(k, "stack_bytes")});
  if (!rows.empty())
    out += html::table({"kernel", "registers", "spill stores", "spill loads", "shared bytes", "stack bytes"}, rows,
                       {false, true, true, true, true, true});
  return out + "</section>\n";
}

std::string env_section(const json& r) {
  std::string out;
  if (const auto& bs = array_at(r, {"baselines"}); !bs.empty()) {
    rows_t rows;
    for (const auto& b : bs)
      rows.push_back({str_or(b, {"name"}, "?"), str_or(b, {"source"}, "–"), str_or(b, {"sha256"}, "–").substr(0, 12)});
    out += "<section id=\"baselines\">\n<h2>Baselines</h2>\n" + html::table({"name", "source", "sha256"}, rows) +
           "</section>\n";
  }
  if (const json* env = json_at(r, {"env"}); env != nullptr && env->is_object()) {
    std::vector<std::pair<std::string, std::string>> f;
    for (const auto& [k, v] : env->items())
      f.emplace_back(
          k, v.is_object() || v.is_array() ? v.dump(-1, ' ', false, json::error_handler_t::replace) : scalar_text(v));
    out += "<section id=\"env\">\n<h2>Environment</h2>\n" + html::facts(f) + "</section>\n";
  }
  return out;
}

}  // namespace

std::string detail::seconds_text(const json& j, std::string_view key) {
  auto v = number_at(j, {key});
  return v ? format_seconds(*v) : std::string("–");
}

std::string detail::evaluation_sections(const json& r, bool with_why) {
  const std::string status = str_or(r, {"verdict", "status"}, "unknown");
  return (!with_why || is_ok_status(status) ? std::string() : why_section(r)) + forest_section(r) + timing_section(r) +
         distribution_section(r) + ceiling_section(r) + memory_section(r) + correctness_section(r) + census_section(r) +
         build_section(r) + env_section(r);
}

std::string render_html(const nlohmann::json& r) {
  if (const json* e = json_at(r, {"e2e"}); e != nullptr && e->is_object()) return render_html_e2e(r);
  const std::string status = str_or(r, {"verdict", "status"}, "unknown");
  const std::string body = header_section(r) + evaluation_sections(r, true);
  const std::string title =
      "kjudge: " + str_or(r, {"problem", "name"}, "?") + " " + str_or(r, {"problem", "dtype"}, "") + " — " + status;
  return html::page(title, body);
}

}  // namespace kjudge
