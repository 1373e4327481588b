#include "loop/loop_html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "core/hash.hpp"
#include "core/verdict_status.hpp"
#include "loop/loop_report.hpp"
#include "report/html.hpp"
#include "report/report.hpp"
#include "report/svg.hpp"

namespace kjudge::loop {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

std::string line_diff(const std::string& a, const std::string& b, std::size_t max_lines) {
  const auto x = split_lines(a), y = split_lines(b);
  if (x == y) return "";
  if (x.size() > max_lines || y.size() > max_lines)
    return fmt::format("(not diffed: {} and {} lines, over {})\n", x.size(), y.size(), max_lines);
  // Longest common subsequence by dynamic programming over the lines (sources of a few hundred
  // lines: at most max_lines² cells).
  const std::size_t n = x.size(), m = y.size();
  std::vector<std::vector<std::uint32_t>> l(n + 1, std::vector<std::uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;) l[i][j] = x[i] == y[j] ? l[i + 1][j + 1] + 1 : std::max(l[i + 1][j], l[i][j + 1]);
  std::string out;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] == y[j]) {
      out += "  " + x[i++] + "\n";
      ++j;
    } else if (j < m && (i == n || l[i][j + 1] >= l[i + 1][j])) {
      out += "+ " + y[j++] + "\n";
    } else {
      out += "- " + x[i++] + "\n";
    }
  }
  return out;
}

namespace {

constexpr int k_palette = 8;  // the page's CSS classes fam0..fam7

std::string esc(std::string_view s) {
  return xml_escape(s);
}

// A member of a journal record that may be absent: an interrupted iteration has no beam event and
// an iteration never proposed has no proposer record (both null, where json::value throws).
json member(const json& j, const char* key) {
  return j.is_object() ? j.value(key, json()) : json();
}

// The colour class of each family, in the order they first appear.
std::map<std::string, int> family_colours(const loop_state& st) {
  std::map<std::string, int> out;
  int next = 0;
  for (const auto& p : st.proposals)
    if (p.state == "judged") {
      const std::string f = p.summary.value("family", "unknown");
      if (!out.count(f)) out[f] = next++ % k_palette;
    }
  for (const auto& [name, f] : st.families)
    if (!out.count(name)) out[name] = next++ % k_palette;
  return out;
}

std::string speedup_of(const json& j) {
  if (!j.is_object() || !j.value("median", json()).is_number()) return "–";
  const auto& ci = j.value("ci95", json());
  if (ci.is_array() && ci.size() == 2 && !j.value("estimate_only", false))
    return fmt::format("{} [{}, {}]", format_speedup(j["median"].get<double>()),
                       fmt::format("{:.3g}", ci[0].get<double>()), fmt::format("{:.3g}", ci[1].get<double>()));
  return ci_text(j);
}

// Iterations in which a family was retired or revived, from the beam events' changes.
std::map<std::string, std::vector<std::string>> family_events(const loop_state& st) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [i, rec] : st.iterations) {
    const json changes = member(rec.beam_event, "changes");
    if (!changes.is_array()) continue;
    for (const auto& ch : changes) {
      if (!ch.is_string()) continue;
      const std::string s = ch.get<std::string>();
      const auto colon = s.find(':');
      if (colon == std::string::npos) continue;
      out[s.substr(colon + 1)].push_back(fmt::format("{} at iteration {}", s.substr(0, colon), i));
    }
  }
  return out;
}

std::string winner_section(const loop_state& st) {
  const json& c = st.config;
  std::string out = "<header>\n<h1>kjudge loop: " + esc(c.value("problem_name", "?")) + " on " +
                    esc(c.value("device", "?")) + "</h1>\n";
  std::vector<std::pair<std::string, std::string>> f;
  if (st.best) {
    const auto& b = *st.best;
    int first_led = 0;
    for (const auto& [i, rec] : st.iterations)
      if (const json best = member(rec.beam_event, "best");
          rec.finished && best.is_object() && best.value("family", "") == b.family) {
        first_led = i;
        break;
      }
    int first_try = 0;
    for (const auto& p : st.proposals)
      if (p.state == "judged" && p.summary.value("family", "") == b.family) {
        first_try = p.iteration;
        break;
      }
    out += "<p class=\"winner\">Family <strong>" + esc(b.family) + "</strong> won: " + esc(b.id) + " at " +
           esc(speedup_of(to_json(b))) + " against " + esc("the strongest baseline") + ", reached in iteration " +
           std::to_string(b.iteration) + ". The family was first tried in iteration " + std::to_string(first_try) +
           " and first led the run in iteration " + std::to_string(first_led) + ".</p>\n";
  } else {
    out += "<p class=\"winner\">No correct candidate: no family won.</p>\n";
  }
  const json t = trajectory_summary(st);
  f.emplace_back("run", c.value("id", ""));
  f.emplace_back("proposer", c.value("proposer", ""));
  f.emplace_back("iterations", fmt::format("{}, {}", st.finished_iterations,
                                           st.stop_reason.empty() ? "not stopped" : "stopped: " + st.stop_reason));
  f.emplace_back("active time", format_seconds(st.elapsed_s));
  f.emplace_back("proposals", fmt::format("{} judged ({} correct, {} rejected), {} garbage, {} duplicate, {} discarded",
                                          t.value("judged", 0), t.value("correct", 0), t.value("rejected", 0),
                                          t.value("garbage", 0), t.value("duplicates", 0), t.value("discarded", 0)));
  return out + html::facts(f) + "</header>\n";
}

// The y of a proposal in the trajectory: its speedup, or nullopt (rejected, or not timed).
std::optional<double> speedup_value(const proposal& p) {
  const json& s = p.summary;
  if (!is_ok_status(s.value("status", "")) || !s.value("median", json()).is_number()) return std::nullopt;
  const double v = s["median"].get<double>();
  return v > 0 ? std::optional<double>(v) : std::nullopt;
}

std::string trajectory_plot(const loop_state& st, const std::map<std::string, int>& colour) {
  const int n = std::max(1, st.last_iteration());
  double lo = 1.0, hi = 1.0;
  for (const auto& p : st.proposals)
    if (p.state == "judged")
      if (auto v = speedup_value(p)) svg_extend(lo, hi, *v, true);
  for (const auto& [i, rec] : st.iterations) {
    const json b = member(rec.beam_event, "best");
    if (b.is_object() && b.value("ci95", json()).is_array() && b["ci95"].size() == 2) {
      svg_extend(lo, hi, b["ci95"][0].get<double>(), true);
      svg_extend(lo, hi, b["ci95"][1].get<double>(), true);
    }
  }
  const double left = 70, right = 860, top = 44, bottom = 340;
  svg_canvas s(900, bottom + 40, "trajectory",
               "best speedup with its 95% CI per iteration, and every judged proposal, log scale");
  svg_axis x{0.5, n + 0.5, left, right, false};
  svg_axis y{lo / 1.2, hi * 1.2, bottom, top, true};
  s.y_axis(y, left, right, [](double v) { return format_speedup(v); });
  s.x_axis(x, bottom, top, [](double v) { return v == std::floor(v) ? fmt::format("{:.0f}", v) : std::string(); });
  s.text((left + right) / 2, bottom + 34, "iteration", "tick", "middle");
  s.line(left, y.map(1.0), right, y.map(1.0), "unity");
  s.text(left - 6, 28, "rejected", "note", "end");
  // The best so far after each iteration: a band for its CI, a step line for its median.
  std::vector<std::pair<double, double>> steps;
  for (const auto& [i, rec] : st.iterations) {
    const json b = member(rec.beam_event, "best");
    if (!rec.finished || !b.is_object() || !b.value("median", json()).is_number()) continue;
    const double m = b["median"].get<double>();
    s.group("best-mark",
            {{"iteration", std::to_string(i)}, {"id", b.value("id", "")}, {"median", fmt::format("{:.6g}", m)}});
    if (b.value("ci95", json()).is_array() && b["ci95"].size() == 2 && !b.value("estimate_only", false))
      s.rect(x.map(i - 0.5), y.map(b["ci95"][1].get<double>()), x.map(i + 0.5) - x.map(i - 0.5),
             y.map(b["ci95"][0].get<double>()) - y.map(b["ci95"][1].get<double>()), "band",
             fmt::format("best after iteration {}: {} {}", i, b.value("id", ""), speedup_of(b)));
    s.end_group();
    steps.emplace_back(x.map(i - 0.5), y.map(m));
    steps.emplace_back(x.map(i + 0.5), y.map(m));
  }
  s.path(steps, "best");
  // Every judged proposal: a point coloured by family, a red cross for a rejection (along the top).
  std::map<int, int> rejected_at;
  for (const auto& p : st.proposals) {
    if (p.state != "judged") continue;
    const std::string fam = p.summary.value("family", "unknown"), status = p.summary.value("status", "");
    const std::string tip = p.id + " " + fam + " " + status + " " + ci_text(p.summary);
    s.group("proposal-mark", {{"id", p.id}, {"family", fam}, {"status", status}});
    const double jitter = (static_cast<double>(p.index % 5) - 2.0) * 3.0;
    if (auto v = speedup_value(p))
      s.circle(x.map(p.iteration) + jitter, y.map(*v), 4, "pt fam" + std::to_string(colour.at(fam)), tip);
    else if (is_ok_status(status))
      s.circle(x.map(p.iteration) + jitter, bottom - 6, 4, "pt untimed fam" + std::to_string(colour.at(fam)), tip);
    else
      s.cross(x.map(p.iteration) + jitter, 16 + 8.0 * (rejected_at[p.iteration]++ % 3), 4, "rejected", tip);
    s.end_group();
  }
  return s.str();
}

std::string legend(const std::map<std::string, int>& colour) {
  std::string out = "<p class=\"legend\">";
  for (const auto& [name, c] : colour)
    out += "<span class=\"swatch fam" + std::to_string(c) + "\"></span>" + esc(name) + " &nbsp; ";
  return out +
         "<span class=\"swatch best-line\"></span>best so far (band: its 95% CI) &nbsp; <span class=\"x\">×</span> "
         "rejected</p>\n";
}

std::string families_section(const loop_state& st) {
  const auto events = family_events(st);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> cls;
  for (const auto& [name, f] : st.families) {
    std::string rej;
    for (const auto& [status, count] : f.rejections)
      rej += (rej.empty() ? "" : ", ") + fmt::format("{} {}", status, count);
    std::string state = f.retired   ? fmt::format("retired at iteration {}: {}", f.retired_at, f.retired_reason)
                        : f.in_beam ? "in the beam"
                                    : "active, outside the beam";
    std::string history;
    if (auto it = events.find(name); it != events.end())
      for (const auto& e : it->second) history += (history.empty() ? "" : "; ") + e;
    rows.push_back({name, std::to_string(f.attempts), std::to_string(f.correct), std::to_string(f.rejected),
                    rej.empty() ? "–" : rej, f.best ? f.best->id + " " + speedup_of(to_json(*f.best)) : "–", state,
                    history.empty() ? "–" : history});
    cls.push_back(f.retired ? "retired" : "");
  }
  return "<section id=\"families\">\n<h2>Families</h2>\n" +
         html::table({"family", "attempts", "correct", "rejected", "rejections", "best", "state", "retired / revived"},
                     rows, {false, true, true, true, false, false, false, false}, cls, "families") +
         "</section>\n";
}

std::string beam_section(const loop_state& st) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : st.beam)
    rows.push_back({std::to_string(m.rank), m.c.id, m.c.family, speedup_of(to_json(m.c)), format_seconds(m.c.time_s),
                    std::to_string(m.c.iteration), m.near_miss ? "a near-miss of its family" : "a member"});
  if (rows.empty()) return "<section id=\"beam\">\n<h2>The beam at the end</h2>\n<p>Empty.</p>\n</section>\n";
  return "<section id=\"beam\">\n<h2>The beam at the end</h2>\n" +
         html::table({"rank", "candidate", "family", "speedup [95% CI]", "time", "iteration", "kept as"}, rows,
                     {true, false, false, true, true, true, false}, {}, "beam") +
         "</section>\n";
}

std::string read_or_empty(const fs::path& p) {
  try {
    return read_file(p);
  } catch (const std::exception&) {
    return "";
  }
}

std::string diff_html(const std::string& diff) {
  std::string out;
  for (const auto& l : split_lines(diff)) {
    const char* cls = l.rfind("+ ", 0) == 0 ? "add" : l.rfind("- ", 0) == 0 ? "del" : "ctx";
    out += fmt::format("<span class=\"{}\">{}</span>", cls, esc(l));
  }
  return out;
}

std::string accepted_section(const loop_state& st, const fs::path& workdir) {
  std::string out = "<section id=\"accepted\">\n<h2>Accepted improvements</h2>\n";
  if (st.accepts.empty()) return out + "<p>None.</p>\n</section>\n";
  std::string table =
      "<table class=\"accepted\">\n<thead><tr><th class=\"num\">iteration</th><th>candidate</th>"
      "<th>family</th><th class=\"num\">speedup [95% CI]</th><th class=\"num\">time</th>"
      "<th>beyond noise</th><th>commit</th><th>diff</th></tr></thead>\n<tbody>\n";
  std::string diffs;
  for (const auto& a : st.accepts) {
    const std::string id = a.value("id", ""),
                      prev = a.value("previous", json()).is_string() ? a["previous"].get<std::string>() : "";
    const proposal* p = st.find(id);
    const proposal* pp = st.find(prev);
    auto it = st.commits.find(id);
    const std::string anchor = "diff-" + id;
    table += fmt::format(
        "<tr class=\"accept-row\"><td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td>{}</td><td class=\"mono\">{}</td><td><a href=\"#{}\">diff</a></td></tr>\n",
        a.value("iteration", 0), esc(id), esc(a.value("family", "")), esc(speedup_of(a)),
        a.value("time_s", json()).is_number() ? esc(format_seconds(a["time_s"].get<double>())) : "–",
        a.value("beyond_noise", false) ? "yes" : "no, within the previous CI",
        it != st.commits.end() ? esc(it->second.substr(0, 12)) : "not committed", esc(anchor));
    const std::string now = p != nullptr && !p->file.empty() ? read_or_empty(workdir / p->file) : "";
    const std::string before = pp != nullptr && !pp->file.empty() ? read_or_empty(workdir / pp->file) : "";
    const std::string what = pp != nullptr ? id + " against " + prev : id + ", the first accepted (whole source)";
    std::string body = now.empty() ? "(the source is not in the workdir)\n" : diff_html(line_diff(before, now));
    diffs += "<details id=\"" + esc(anchor) + "\" class=\"diff\"><summary>" + esc(what) + "</summary>\n<pre>" + body +
             "</pre></details>\n";
  }
  return out + table + "</tbody>\n</table>\n" + diffs + "</section>\n";
}

std::string iterations_section(const loop_state& st) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& [i, rec] : st.iterations) {
    std::string req = rec.req.kind;
    if (!rec.req.target_id.empty()) req += " " + rec.req.target_id;
    int judged = 0, rejected = 0;
    for (const auto& id : rec.proposal_ids)
      if (const proposal* p = st.find(id); p != nullptr && p->state == "judged") {
        ++judged;
        if (!is_ok_status(p->summary.value("status", ""))) ++rejected;
      }
    const json b = member(rec.beam_event, "best");
    std::string best = rec.finished ? (b.is_object() ? b.value("id", "") + " " + speedup_of(b) : "–") : "(unfinished)";
    const json proposer_status = member(rec.proposer, "status");
    rows.push_back({std::to_string(i), req,
                    proposer_status.is_string() ? proposer_status.get<std::string>()
                    : rec.proposed              ? ""
                                                : "not run",
                    std::to_string(judged), std::to_string(rejected), best,
                    member(rec.beam_event, "improved") == true ? "yes" : ""});
  }
  return "<section id=\"iterations\">\n<h2>Iterations</h2>\n" +
         html::table({"iteration", "request", "proposer", "judged", "rejected", "best so far [95% CI]", "improved"},
                     rows, {true, false, false, true, true, true, false}, {}, "iterations") +
         "</section>\n";
}

}  // namespace

std::string render_loop_html(const loop_state& st, const fs::path& workdir) {
  const auto colour = family_colours(st);
  std::string body = winner_section(st);
  body +=
      "<section id=\"trajectory\">\n<h2>Trajectory</h2>\n<p class=\"note\">The best candidate's speedup over "
      "the strongest baseline after each iteration (the line; the band is its 95% CI), and every judged proposal: "
      "a point at its speedup, coloured by family; a rejected one as a red cross along the top. Log scale.</p>\n" +
      trajectory_plot(st, colour) + legend(colour) + "</section>\n";
  body += families_section(st) + beam_section(st) + accepted_section(st, workdir) + iterations_section(st);
  return html::page("kjudge loop: " + st.config.value("problem_name", "?"), body);
}

}  // namespace kjudge::loop
