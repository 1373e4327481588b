#include "cli/loop_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "core/error.hpp"
#include "core/json_file.hpp"
#include "loop/journal.hpp"
#include "loop/loop.hpp"
#include "loop/loop_html.hpp"
#include "loop/loop_report.hpp"
#include "report/report.hpp"

namespace kjudge::cli {

namespace {

struct loop_flags {
  loop::loop_options o;
  int budget = 0;
  double hours = 0;
  std::string dtype;
  std::string torch;
  std::string workdir, db;
  std::string resume;
  bool no_sandbox = false;
  bool quiet = false;
  std::string report_dir, report_svg, report_json, report_html;
  CLI::App* loop = nullptr;
  CLI::App* report = nullptr;
  CLI::Option* budget_opt = nullptr;
  CLI::Option* hours_opt = nullptr;
};

loop_flags& flags() {
  static loop_flags f;
  return f;
}

int run_report() {
  auto& f = flags();
  namespace fs = std::filesystem;
  const fs::path dir = fs::absolute(f.report_dir);
  const loop::loop_state st = loop::load_run(dir);
  const fs::path svg = f.report_svg.empty() ? dir / "report" / "trajectory.svg" : fs::path(f.report_svg);
  loop::write_file_atomic(svg, loop::render_trajectory_svg(st));
  std::cout << loop::render_loop_report(st, dir, svg);
  if (!f.report_html.empty()) {
    loop::write_file_atomic(f.report_html, loop::render_loop_html(st, dir));
    std::cout << "page: " << f.report_html << "\n";
  }
  if (!f.report_json.empty()) {
    nlohmann::json doc{{"schema", "kjudge.loop.report/1"},
                       {"workdir", dir.string()},
                       {"config", st.config},
                       {"summary", loop::trajectory_summary(st)}};
    nlohmann::json fams = nlohmann::json::array();
    for (const auto& [name, fr] : st.families) fams.push_back(loop::family_to_json(fr));
    doc["families"] = fams;
    nlohmann::json its = nlohmann::json::array();
    for (const auto& [i, rec] : st.iterations)
      its.push_back({{"iteration", i},
                     {"request", rec.req.to_json()},
                     {"proposer", rec.proposer},
                     {"proposals", rec.proposal_ids},
                     {"best", rec.beam_event.value("best", nlohmann::json())},
                     {"improved", rec.beam_event.value("improved", false)}});
    doc["iterations"] = its;
    doc["accepted"] = st.accepts;
    doc["commits"] = st.commits;
    write_json_file(f.report_json, doc);
  }
  return 0;
}

void print_outcome(const loop::loop_outcome& r) {
  std::printf("loop %s: %d iteration(s), stopped: %s\n", r.run_id.c_str(), r.iterations, r.stop_reason.c_str());
  if (r.best)
    std::printf("best: %s (family %s) %.3gx [%.3g, %.3g], %s\n", r.best->id.c_str(), r.best->family.c_str(),
                r.best->median, r.best->lo, r.best->hi, format_seconds(r.best->time_s).c_str());
  else
    std::printf("best: none (no correct candidate)\n");
  std::printf("workdir: %s\ntrajectory: kjudge loop report %s\n", r.workdir.c_str(), r.workdir.c_str());
}

}  // namespace

void add_loop_command(CLI::App& app) {
  auto& f = flags();
  auto* c = app.add_subcommand(
      "loop", "search loop: a beam of candidates driven by a proposer, judged by kjudge (docs/proposer.md)");
  f.loop = c;
  c->require_subcommand(0, 1);
  c->add_option("PROBLEM", f.o.problem, "suite name or path to a problem directory");
  c->add_option("--proposer", f.o.proposer, "a shell command, autotune:TEMPLATE[,TEMPLATE...] or dir:PATH");
  c->add_option("--beam", f.o.beam, "beam width K (default 4)");
  f.budget_opt =
      c->add_option("--budget", f.budget, "stop after N iterations in total (default: 20, unlimited for autotune)");
  f.hours_opt = c->add_option("--hours", f.hours, "stop after H hours of loop time");
  c->add_option("--workdir", f.workdir, "run directory (default ./kjudge-loop-PROBLEM-TIME)");
  c->add_option("--device", f.o.device, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  c->add_option("--dtype", f.dtype, "dtype variant (default: the problem's first)");
  c->add_option("--plateau", f.o.plateau,
                "iterations without improvement beyond the CI before asking for a new family (0: never)");
  c->add_option("--eval-budget", f.o.eval_budget_s, "timing budget of one full judgement, seconds (default 2)");
  c->add_option("--min-rounds", f.o.min_rounds, "A/B rounds of one full judgement (default 10)");
  c->add_option("--hidden", f.o.hidden,
                "hidden cases per judgement (default: the problem's; the same floor as eval's --hidden)");
  c->add_option("--torch-baselines", f.torch,
                "PyTorch baselines of each judgement, comma-separated kinds or none (default: the judge's)");
  c->add_option("--proposer-timeout", f.o.proposer_timeout_s, "time limit of one proposer run, seconds (default 900)");
  c->add_option("--max-proposals", f.o.max_proposals, "files judged per iteration (default 16)");
  c->add_option("--autotune-max-configs", f.o.autotune_max_configs,
                "first-rung configurations of autotune (default 64)");
  c->add_option("--near-miss", f.o.near_miss_margin,
                "keep a family's best within this fraction of the best (default 0.15)");
  c->add_option("--retire-after", f.o.retire_after, "attempts before a family outside the beam is retired (default 2)");
  c->add_option("--db", f.db,
                "the store: an SQLite file or a postgresql:// URL (default: $KJUDGE_DB or "
                "~/.local/share/kjudge/kjudge.db)");
  c->add_option("--resume", f.resume, "continue the run in DIR (kill -9 included)");
  c->add_flag("--no-sandbox", f.no_sandbox, "run workers without seccomp/landlock (debugging only)");
  c->add_flag("-q,--quiet", f.quiet, "no progress display");
  auto* r = c->add_subcommand("report", "the trajectory of a run: table and SVG plot");
  f.report = r;
  r->add_option("DIR", f.report_dir, "the run's workdir")->required();
  r->add_option("--svg", f.report_svg, "where to write the plot (default DIR/report/trajectory.svg)");
  r->add_option("--json", f.report_json, "also write the trajectory as JSON");
  r->add_option("--html", f.report_html,
                "also write a self-contained HTML page: the winner, the trajectory, families, beam, accepted diffs");
}

bool run_loop_command_if_selected(int& exit_status) {
  auto& f = flags();
  if (f.loop == nullptr || !f.loop->parsed()) return false;
  if (f.report != nullptr && f.report->parsed()) {
    exit_status = run_report();
    return true;
  }
  if (!f.resume.empty()) {
    if (!f.o.problem.empty()) throw usage_error("loop: give either PROBLEM or --resume DIR, not both");
    // A run's settings are fixed in its loop.json; only its limits can be extended.
    for (const char* name : {"--proposer", "--beam", "--workdir", "--device", "--dtype", "--plateau", "--eval-budget",
                             "--min-rounds", "--hidden", "--torch-baselines", "--proposer-timeout", "--max-proposals",
                             "--autotune-max-configs", "--near-miss", "--retire-after", "--db", "--no-sandbox"})
      if (f.loop->count(name) > 0)
        throw usage_error(std::string("loop --resume: ") + name + " is fixed by the run (" + f.resume +
                          "/loop.json); only --budget and --hours can change");
    loop::resume_options ro;
    if (f.budget_opt->count() > 0) ro.budget_iterations = f.budget;
    if (f.hours_opt->count() > 0) ro.hours = f.hours;
    ro.progress = !f.quiet;
    print_outcome(loop::resume_loop(f.resume, ro));
    exit_status = 0;
    return true;
  }
  loop::loop_options o = f.o;
  if (f.budget_opt->count() > 0) o.budget_iterations = f.budget;
  if (f.hours_opt->count() > 0) o.hours = f.hours;
  if (!f.dtype.empty()) o.dtype = f.dtype;
  for (std::size_t pos = 0; pos < f.torch.size();) {
    const auto comma = std::min(f.torch.find(',', pos), f.torch.size());
    if (comma > pos) o.torch_baselines.push_back(f.torch.substr(pos, comma - pos));
    pos = comma + 1;
  }
  o.workdir = f.workdir;
  o.db = f.db;
  o.sandbox = !f.no_sandbox;
  o.progress = !f.quiet;
  print_outcome(loop::run_loop(o));
  exit_status = 0;
  return true;
}

}  // namespace kjudge::cli
