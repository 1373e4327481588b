#include "cli/redteam_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "redteam/redteam.hpp"

namespace kjudge::cli {

namespace {

struct redteam_flags {
  std::string device = "cpu";
  std::string tests_dir;
  std::vector<std::string> only;
  bool attacks_only = false;
  bool honest_only = false;
  bool honest_timing = false;
  int hidden = 6;
  double budget = 1.0;
  int jobs = 1;
  std::string json_path;
};

CLI::App* g_redteam = nullptr;
redteam_flags g_flags;

int cmd_redteam(const redteam_flags& f) {
  redteam_options o;
  o.device = f.device;
  if (!f.tests_dir.empty()) o.tests_dir = f.tests_dir;
  o.only = f.only;
  o.attacks = !f.honest_only;
  o.honest = !f.attacks_only;
  o.hidden_count = f.hidden;
  o.timing_budget_seconds = f.budget;
  o.honest_timing = f.honest_timing;
  o.jobs = f.jobs;
  if (f.budget <= 0) throw usage_error("--budget: expected a positive number of seconds");
  if (f.jobs < 1) throw usage_error("--jobs: expected at least 1");
  std::printf("kjudge redteam on %s: each candidate in a controller process of its own (%d at once)\n",
              f.device.c_str(), f.jobs);
  std::fflush(stdout);
  int done = 0;
  const redteam_report rep = run_redteam(o, [&](const redteam_row& r) {
    ++done;
    std::printf("[%3d] %-7s %-52s %s%s  (%.1f s)\n", done, r.entry.kind.c_str(), r.entry.name.c_str(), r.status.c_str(),
                r.rule.empty() ? "" : (" (" + r.rule + ")").c_str(), r.seconds);
    std::fflush(stdout);
  });
  std::printf("\n");
  std::cout << rep.table();
  if (!f.json_path.empty()) {
    std::ofstream out(f.json_path);
    if (!out) throw usage_error(f.json_path + ": cannot be written");
    out << rep.to_json().dump(2) << "\n";
  }
  return rep.clean() ? 0 : 1;
}

}  // namespace

void add_redteam_command(CLI::App& app) {
  g_redteam =
      app.add_subcommand("redteam", "run the red-team and honest corpora: attacks caught, honest candidates passed");
  g_redteam->add_option("--device", g_flags.device, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  g_redteam->add_option("--tests", g_flags.tests_dir,
                        "directory holding redteam/ and honest/ (default: the repository's tests/)");
  g_redteam->add_option("--only", g_flags.only, "run only entries whose file name contains one of these");
  g_redteam->add_flag("--attacks-only", g_flags.attacks_only, "only the red-team corpus");
  g_redteam->add_flag("--honest-only", g_flags.honest_only, "only the honest corpus");
  g_redteam->add_flag("--honest-timing", g_flags.honest_timing,
                      "judge every honest candidate with the timing phase too");
  g_redteam->add_option("--hidden", g_flags.hidden, "hidden cases per evaluation (the same floor as eval's --hidden)");
  g_redteam->add_option("--budget", g_flags.budget, "timing budget per evaluation that needs timing, seconds");
  g_redteam->add_option("--jobs,-j", g_flags.jobs, "evaluations at once");
  g_redteam->add_option("--json", g_flags.json_path, "write the report (schema kjudge.redteam/1)");
}

bool run_redteam_command_if_selected(int& status) {
  if (g_redteam == nullptr || !g_redteam->parsed()) return false;
  status = cmd_redteam(g_flags);
  return true;
}

}  // namespace kjudge::cli
