#include "loop/loop_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/verdict_status.hpp"
#include "loop/journal.hpp"
#include "report/report.hpp"

namespace kjudge::loop {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string ci_text(const json& s) {
  if (!s.is_object() || !s.value("median", json()).is_number()) return "-";
  if (s.value("lo", json()).is_number() && s.value("hi", json()).is_number())
    return fmt::format("{:.3g}x [{:.3g}, {:.3g}]", s["median"].get<double>(), s["lo"].get<double>(),
                       s["hi"].get<double>());
  return fmt::format("{:.3g}x (estimate, no CI)", s["median"].get<double>());
}

namespace {

// A beam entry: its id and speedup, with its CI where one was measured (an estimate's ci95 holds
// the median twice: beam.cpp).
std::string scored_text(const json& b) {
  if (!b.is_object()) return "-";
  if (b.value("estimate_only", false))
    return fmt::format("{} {:.3g}x (estimate, no CI)", b.value("id", ""), b.value("median", 0.0));
  const auto& ci = b.value("ci95", json::array());
  if (ci.size() == 2)
    return fmt::format("{} {:.3g}x [{:.3g}, {:.3g}]", b.value("id", ""), b.value("median", 0.0), ci[0].get<double>(),
                       ci[1].get<double>());
  return fmt::format("{} {:.3g}x", b.value("id", ""), b.value("median", 0.0));
}

std::string time_text(const json& t) {
  return t.is_number() ? format_seconds(t.get<double>()) : std::string("-");
}

std::string duration_text(double s) {
  const long t = std::lround(std::max(0.0, s));
  if (t >= 3600) return fmt::format("{}h{:02d}m", t / 3600, (t % 3600) / 60);
  if (t >= 60) return fmt::format("{}m{:02d}s", t / 60, t % 60);
  return fmt::format("{}s", t);
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

json candidate_json(const proposal& p, const json& s) {
  return json{{"id", p.id},
              {"iteration", p.iteration},
              {"family", s.value("family", "unknown")},
              {"status", s.value("status", "")},
              {"median", s.value("median", json())},
              {"lo", s.value("lo", json())},
              {"hi", s.value("hi", json())},
              {"time_s", s.value("time_s", json())},
              {"config", p.meta.is_object() && p.meta.contains("autotune") ? p.meta["autotune"].value("config", json())
                                                                           : json()}};
}

// Correct judgements whose source was never rejected, in journal order.
std::vector<const proposal*> correct_judgements(const loop_state& st) {
  std::set<std::string> rejected;
  for (const auto& p : st.proposals)
    if (p.state == "judged" && !is_ok_status(p.summary.value("status", ""))) rejected.insert(p.sha256);
  std::vector<const proposal*> out;
  for (const auto& p : st.proposals)
    if (p.state == "judged" && is_ok_status(p.summary.value("status", "")) && !rejected.count(p.sha256) &&
        p.summary.value("time_s", json()).is_number())
      out.push_back(&p);
  return out;
}

}  // namespace

loop_state load_run(const fs::path& workdir) {
  const fs::path j = workdir / "journal.jsonl";
  if (!fs::exists(j)) throw usage_error(workdir.string() + ": not a loop workdir (no journal.jsonl)");
  loop_state st;
  for (const auto& ev : read_journal(j, false)) st.apply(ev);
  if (st.config.is_null() || st.config.empty())
    throw usage_error(j.string() + ": does not start with a \"started\" event");
  return st;
}

json trajectory_summary(const loop_state& st) {
  json out{{"iterations", st.finished_iterations}, {"stop_reason", st.stop_reason}, {"elapsed_s", st.elapsed_s}};
  int judged = 0, correct = 0, garbage = 0, duplicates = 0, discarded = 0, pending = 0;
  for (const auto& p : st.proposals) {
    if (p.state == "judged") {
      ++judged;
      if (is_ok_status(p.summary.value("status", ""))) ++correct;
    } else if (p.state == "garbage")
      ++garbage;
    else if (p.state == "duplicate")
      ++duplicates;
    else if (p.state == "pending")
      ++pending;
    else
      ++discarded;
  }
  out["proposals"] = st.proposals.size();
  out["judged"] = judged;
  out["correct"] = correct;
  out["rejected"] = judged - correct;
  out["garbage"] = garbage;
  out["duplicates"] = duplicates;
  out["discarded"] = discarded;
  out["pending"] = pending;
  out["accepted"] = st.accepts.size();
  const auto ok = correct_judgements(st);
  out["start"] = ok.empty() ? json() : candidate_json(*ok.front(), ok.front()->summary);
  json best;
  if (st.best)
    if (const proposal* p = st.find(st.best->id)) best = candidate_json(*p, p->summary);
  out["best"] = best;
  out["time_ratio"] = nullptr;
  out["speedup_ratio"] = nullptr;
  if (out["start"].is_object() && best.is_object()) {
    const auto& s = out["start"];
    if (s["time_s"].is_number() && best["time_s"].is_number() && best["time_s"].get<double>() > 0)
      out["time_ratio"] = s["time_s"].get<double>() / best["time_s"].get<double>();
    if (s["median"].is_number() && best["median"].is_number() && s["median"].get<double>() > 0)
      out["speedup_ratio"] = best["median"].get<double>() / s["median"].get<double>();
  }
  return out;
}

std::string render_loop_report(const loop_state& st, const fs::path& workdir, const fs::path& svg) {
  const json& c = st.config;
  const json t = trajectory_summary(st);
  std::string o;
  o += fmt::format("kjudge loop report: {}\n", workdir.string());
  o += fmt::format("run {} · {} ({}{}) · proposer {}\n", c.value("id", ""), c.value("problem_name", ""),
                   c.value("device", ""),
                   c.value("dtype", json()).is_string() ? ", " + c["dtype"].get<std::string>() : std::string(),
                   c.value("proposer", ""));
  o += fmt::format("{} iteration(s), {} active{}\n", st.finished_iterations, duration_text(st.elapsed_s),
                   st.stop_reason.empty() ? ", not stopped (running, or killed: resume with kjudge loop --resume DIR)"
                                          : ", stopped: " + st.stop_reason);
  o += fmt::format(
      "{} proposal(s): {} judged ({} correct, {} rejected), {} garbage, {} duplicate, {} discarded or skipped{}\n\n",
      t.value("proposals", 0), t.value("judged", 0), t.value("correct", 0), t.value("rejected", 0),
      t.value("garbage", 0), t.value("duplicates", 0), t.value("discarded", 0),
      t.value("pending", 0) > 0 ? fmt::format(", {} recorded but not judged yet", t.value("pending", 0)) : "");
  auto line = [&](const char* label, const json& x) {
    if (!x.is_object()) return fmt::format("{:<6} -\n", label);
    std::string s = fmt::format("{:<6} {:<10} {:<16} {:<26} {:>10}", label, x.value("id", ""), x.value("family", ""),
                                ci_text(x), time_text(x.value("time_s", json())));
    if (x["config"].is_string()) s += "  " + x["config"].get<std::string>();
    return s + "\n";
  };
  o += line("start", t["start"]);
  o += line("best", t["best"]);
  if (t["time_ratio"].is_number())
    o += fmt::format(
        "       {:.3g}x faster than the start (candidate time: geometric mean over bench cases of the median); "
        "{:.3g}x the start's speedup over the strongest baseline\n",
        t["time_ratio"].get<double>(), t.value("speedup_ratio", 0.0));
  o += "\niterations\n";
  o += fmt::format("  {:>4}  {:<30} {:<22} {:>6}  {:<32} {}\n", "iter", "request", "proposer", "judged",
                   "best of the iteration", "best so far");
  for (const auto& [i, rec] : st.iterations) {
    std::string req = rec.req.kind;
    if (!rec.req.target_id.empty()) req += " " + rec.req.target_id;
    std::string prop = rec.proposed ? fmt::format("{} {:.1f}s ({} files)", rec.proposer.value("status", ""),
                                                  rec.proposer.value("seconds", 0.0), rec.proposer.value("files", 0))
                                    : "not run yet";
    int judged = 0;
    const proposal* best_here = nullptr;
    for (const auto& id : rec.proposal_ids) {
      const proposal* p = st.find(id);
      if (p->state != "judged") continue;
      ++judged;
      if (!is_ok_status(p->summary.value("status", "")) || !p->summary["median"].is_number()) continue;
      if (best_here == nullptr || p->summary["median"].get<double>() > best_here->summary["median"].get<double>())
        best_here = p;
    }
    std::string bh = best_here != nullptr ? best_here->id + " " + ci_text(best_here->summary) : "-";
    std::string so_far = rec.finished ? scored_text(rec.beam_event.value("best", json())) : "(unfinished)";
    if (rec.finished && rec.beam_event.value("improved", false)) so_far += " *";
    o += fmt::format("  {:>4}  {:<30} {:<22} {:>6}  {:<32} {}\n", i, req.substr(0, 30), prop.substr(0, 22), judged, bh,
                     so_far);
  }
  o += "  (* improvement beyond the previous best's 95% CI)\n";

  o += fmt::format("\naccepted improvements (git log in {})\n", (workdir / "git").string());
  if (st.accepts.empty()) o += "  none\n";
  for (const auto& a : st.accepts) {
    const std::string id = a.value("id", "");
    const proposal* p = st.find(id);
    auto it = st.commits.find(id);
    o += fmt::format("  iter {:>3}  {:<10} {:<16} {:<26} {:>10}  {}\n", a.value("iteration", 0), id,
                     a.value("family", ""), p != nullptr ? ci_text(p->summary) : "-",
                     time_text(a.value("time_s", json())),
                     it != st.commits.end() ? "commit " + it->second.substr(0, 12) : "not committed");
  }

  o += "\nfamilies\n";
  o += fmt::format("  {:<16} {:>8} {:>7} {:>8}  {:<22} {:>10}  {}\n", "family", "attempts", "correct", "rejected",
                   "best", "best time", "state");
  std::map<std::string, double> best_time;
  for (const proposal* p : correct_judgements(st)) {
    const std::string f = p->summary.value("family", "unknown");
    const double tt = p->summary["time_s"].get<double>();
    if (!best_time.count(f) || tt < best_time[f]) best_time[f] = tt;
  }
  for (const auto& [name, f] : st.families) {
    const std::string best = f.best ? fmt::format("{:.3g}x ({})", f.best->median, f.best->id) : "-";
    const std::string state = f.retired   ? fmt::format("retired at iteration {}: {}", f.retired_at, f.retired_reason)
                              : f.in_beam ? "in the beam"
                                          : "active, outside the beam";
    o += fmt::format("  {:<16} {:>8} {:>7} {:>8}  {:<22} {:>10}  {}\n", name, f.attempts, f.correct, f.rejected, best,
                     best_time.count(name) ? format_seconds(best_time[name]) : "-", state);
  }

  std::string rej;
  for (const auto& p : st.proposals) {
    if (p.state == "judged" && !is_ok_status(p.summary.value("status", ""))) {
      std::string why = p.summary["reasons"].empty() ? "" : p.summary["reasons"][0].get<std::string>();
      rej += fmt::format("  {:<10} {}{} family {} · {}\n", p.id, p.summary.value("status", ""),
                         p.summary["rule"].is_string() ? " (" + p.summary["rule"].get<std::string>() + ")" : "",
                         p.summary.value("family", "unknown"), why.substr(0, 160));
    } else if (p.state == "garbage" || p.state == "discarded" || p.state == "skipped") {
      rej += fmt::format("  {:<10} {}: {} ({})\n", p.id, p.state, p.reason, p.name);
    }
  }
  for (const auto& [i, rec] : st.iterations) {
    const std::string s = rec.proposer.value("status", "");
    if (rec.proposed && s != "ok" && s != "garbage")
      rej += fmt::format(
          "  iteration {}: proposer {}{}\n", i, s,
          rec.proposer.value("message", "").empty() ? "" : ": " + rec.proposer.value("message", "").substr(0, 160));
  }
  if (!rej.empty()) o += "\nrejected, garbage and proposer failures\n" + rej;
  if (!svg.empty()) o += fmt::format("\nplot: {}\n", svg.string());
  return o;
}

std::string render_trajectory_svg(const loop_state& st) {
  constexpr double k_width = 860, k_height = 460, k_left = 80, k_right = 220, k_top = 40, k_bottom = 50;  // pixels
  const int n = std::max(1, st.last_iteration());
  const auto ok = correct_judgements(st);
  std::vector<std::string> families;
  for (const proposal* p : ok) {
    const std::string f = p->summary.value("family", "unknown");
    if (std::find(families.begin(), families.end(), f) == families.end()) families.push_back(f);
  }
  double tmin = std::numeric_limits<double>::infinity(), tmax = 0;
  for (const proposal* p : ok) {
    const double tt = p->summary["time_s"].get<double>();
    tmin = std::min(tmin, tt);
    tmax = std::max(tmax, tt);
  }
  if (ok.empty()) {
    tmin = 1e-3;
    tmax = 1e-2;
  }
  const double lmin = std::floor(std::log10(tmin / 1.2) * 4) / 4,
               lmax = std::ceil(std::log10(tmax * 1.2) * 4) / 4 + 1e-9;
  auto x_of = [&](double it) { return k_left + (it - 0.5) / n * (k_width - k_left - k_right); };
  auto y_of = [&](double t) { return k_top + (lmax - std::log10(t)) / (lmax - lmin) * (k_height - k_top - k_bottom); };
  static const char* palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                                  "#8c564b", "#e377c2", "#17becf", "#bcbd22"};
  auto color = [&](std::size_t i) { return palette[i % std::size(palette)]; };

  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      k_width, k_height);
  s += fmt::format("<text x=\"{}\" y=\"22\" font-size=\"15\">{}</text>\n", k_left,
                   xml_escape(fmt::format("kjudge loop on {} ({}): best candidate time per family over iterations",
                                          st.config.value("problem_name", ""), st.config.value("device", ""))));
  // Axes and grid: decades and 2x, 5x within them.
  s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"black\"/>\n", k_left, k_top,
                   k_height - k_bottom);
  s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"black\"/>\n", k_left,
                   k_height - k_bottom, k_width - k_right);
  for (int e = static_cast<int>(std::floor(lmin)); e <= static_cast<int>(std::ceil(lmax)); ++e)
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, e);
      const double lv = std::log10(v);
      if (lv < lmin || lv > lmax) continue;
      const double y = y_of(v);
      s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", k_left, y,
                       k_width - k_right, y);
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", k_left - 6, y + 4,
                       xml_escape(format_seconds(v)));
    }
  const int step = std::max(1, n / 12);
  for (int i = 1; i <= n; i += step)
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x_of(i),
                     k_height - k_bottom + 18, i);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">iteration</text>\n",
                   (k_left + k_width - k_right) / 2, k_height - 8);
  s += fmt::format(
      "<text x=\"16\" y=\"{:.1f}\" transform=\"rotate(-90 16 {:.1f})\" text-anchor=\"middle\">candidate time "
      "(geometric mean of bench medians, log scale)</text>\n",
      (k_top + k_height - k_bottom) / 2, (k_top + k_height - k_bottom) / 2);

  // Per family: step line of the best time so far; every correct judgement as a dot.
  double overall = std::numeric_limits<double>::infinity();
  std::string overall_path;
  for (int i = 1; i <= n; ++i) {
    for (const proposal* p : ok)
      if (p->iteration == i) overall = std::min(overall, p->summary["time_s"].get<double>());
    if (std::isfinite(overall))
      overall_path += fmt::format("{}{:.1f},{:.1f} L{:.1f},{:.1f} ", overall_path.empty() ? "M" : "L", x_of(i - 0.5),
                                  y_of(overall), x_of(i + 0.5), y_of(overall));
  }
  for (std::size_t fi = 0; fi < families.size(); ++fi) {
    double best = std::numeric_limits<double>::infinity();
    std::string path;
    for (int i = 1; i <= n; ++i) {
      for (const proposal* p : ok)
        if (p->iteration == i && p->summary.value("family", "unknown") == families[fi])
          best = std::min(best, p->summary["time_s"].get<double>());
      if (std::isfinite(best))
        path += fmt::format("{}{:.1f},{:.1f} L{:.1f},{:.1f} ", path.empty() ? "M" : "L", x_of(i - 0.5), y_of(best),
                            x_of(i + 0.5), y_of(best));
    }
    s += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\"/>\n", path, color(fi));
    for (const proposal* p : ok)
      if (p->summary.value("family", "unknown") == families[fi])
        s += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\" "
            "fill-opacity=\"0.45\"><title>{}</title></circle>\n",
            x_of(p->iteration), y_of(p->summary["time_s"].get<double>()), color(fi),
            xml_escape(p->id + " " + ci_text(p->summary)));
    const double ly = k_top + 10 + 20.0 * static_cast<double>(fi);
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2.5\"/>\n",
                     k_width - k_right + 14, ly, k_width - k_right + 40, ly, color(fi));
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\">{}</text>\n", k_width - k_right + 46, ly + 4,
                     xml_escape(families[fi] + " " + (std::isfinite(best) ? format_seconds(best) : "")));
  }
  if (!overall_path.empty())
    s += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"black\" stroke-width=\"1\" stroke-dasharray=\"4 3\"/>\n",
                     overall_path);
  const double ly = k_top + 10 + 20.0 * static_cast<double>(families.size());
  s +=
      fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"black\" stroke-dasharray=\"4 3\"/>\n",
                  k_width - k_right + 14, ly, k_width - k_right + 40, ly);
  s += fmt::format("<text x=\"{}\" y=\"{:.1f}\">best overall</text>\n", k_width - k_right + 46, ly + 4);
  // Rejected judgements: crosses along the top edge, so a cheating or broken proposal is visible.
  int n_rej = 0;
  for (const auto& p : st.proposals) {
    if (p.state != "judged" || is_ok_status(p.summary.value("status", ""))) continue;
    ++n_rej;
    const double x = x_of(p.iteration), y = k_top + 6;
    s += fmt::format(
        "<path d=\"M{:.1f},{:.1f} l6,6 m0,-6 l-6,6\" stroke=\"#d62728\" "
        "stroke-width=\"1.5\"><title>{}</title></path>\n",
        x - 3, y - 3, xml_escape(p.id + " " + p.summary.value("status", "")));
  }
  if (n_rej > 0) {
    const double ry = ly + 20;
    s += fmt::format("<path d=\"M{},{:.1f} l6,6 m0,-6 l-6,6\" stroke=\"#d62728\" stroke-width=\"1.5\"/>\n",
                     k_width - k_right + 24, ry - 3);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\">rejected ({})</text>\n", k_width - k_right + 46, ry + 4, n_rej);
  }
  s += "</svg>\n";
  return s;
}

}  // namespace kjudge::loop
