#include "cli/e2e_command.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "cli/eval_flags.hpp"
#include "cli/python_commands.hpp"
#include "core/error.hpp"
#include "core/json_file.hpp"
#include "e2e/e2e.hpp"
#include "loop/journal.hpp"
#include "report/html.hpp"
#include "report/progress.hpp"

namespace kjudge::cli {

namespace {

namespace fs = std::filesystem;

struct e2e_flags {
  std::string model, replace, problem, json_path, html_path, compile_modes;
  bool model_only = false;
  eval_flags eval;
};

CLI::App* g_e2e = nullptr;
e2e_flags g_flags;

e2e::options to_e2e_options(const e2e_flags& f) {
  const auto eq = f.replace.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == f.replace.size())
    throw usage_error("--replace " + f.replace + ": expected TARGET=CANDIDATE (e.g. RMSNorm=fast.cpp)");
  e2e::options o;
  o.model = f.model;
  o.target = f.replace.substr(0, eq);
  o.candidate = f.replace.substr(eq + 1);
  if (o.candidate.extension() != ".cpp" && o.candidate.extension() != ".cu" && o.candidate.extension() != ".py")
    throw usage_error(
        "--replace: the candidate must be a .cpp or .cu kjudge candidate (the candidate ABI) or a .py one "
        "(kernel(*inputs, **scalars) or ModelNew)");
  std::error_code ec;
  if (!fs::is_regular_file(o.model, ec)) throw usage_error(f.model + ": no such file");
  if (!fs::is_regular_file(o.candidate, ec)) throw usage_error(o.candidate.string() + ": no such file");
  o.problem = f.problem;
  o.model_only = f.model_only;
  for (std::size_t start = 0; start < f.compile_modes.size();) {
    const auto comma = f.compile_modes.find(',', start);
    const std::string m = f.compile_modes.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (m != "none" && !m.empty()) o.compile_modes.push_back(m);
    start = comma == std::string::npos ? f.compile_modes.size() : comma + 1;
  }
  // Checked as eval checks its --torch list (an unknown mode is a usage error).
  for (const auto& m : o.compile_modes) parse_torch_baselines("torch:compile:" + m);
  o.kernel = to_options(f.eval, f.problem, o.candidate.string());
  o.import_model = [](const fs::path& model, const fs::path& out_root) {
    return import_kernelbench_file(model, out_root, "e2e/" + model.stem().string());
  };
  return o;
}

int cmd_e2e(const e2e_flags& f) {
  e2e::options o = to_e2e_options(f);
  progress_line pl(!f.eval.quiet);
  o.kernel.progress = [&](const std::string& phase, int done, int total, const std::string& note) {
    pl.update("e2e " + o.target, phase, done, total, note);
  };
  const e2e::outcome r = e2e::run(o);
  pl.clear();
  const nlohmann::json doc = r.doc.to_json();
  if (!f.json_path.empty()) write_json_file(f.json_path, doc);
  if (!f.html_path.empty()) loop::write_file_atomic(f.html_path, render_html_e2e(doc));
  std::fputs(e2e::console_table(doc["e2e"]).c_str(), stdout);
  return r.exit_status;
}

}  // namespace

void add_e2e_command(CLI::App& app) {
  g_e2e =
      app.add_subcommand("e2e",
                         "judge a candidate inside a model: the kernel-level judgement, then the model (KernelBench "
                         "form) with TARGET replaced by the candidate against the model's own float64 run");
  g_e2e->add_option("MODEL", g_flags.model, "the model file: Model, get_inputs(), get_init_inputs()")->required();
  g_e2e
      ->add_option("--replace", g_flags.replace,
                   "TARGET=CANDIDATE: TARGET a module class of the model (RMSNorm, LayerNorm, GeluBiasResidual) or a "
                   "dotted function (torch.softmax, torch.nn.functional.softmax, torch.nn.functional.layer_norm); "
                   "CANDIDATE a .cpp/.cu kjudge candidate of the matching suite problem, or a .py one (kernel(*inputs, "
                   "**scalars) "
                   "or a ModelNew class, as `kjudge eval` takes for a suite problem)")
      ->required();
  g_e2e->add_option("--problem", g_flags.problem,
                    "the suite problem the candidate solves (default: inferred from TARGET's name: softmax, rmsnorm, "
                    "layernorm, gelu_bias_residual)");
  g_e2e->add_flag("--model-only", g_flags.model_only,
                  "skip the kernel-level judgement (the model-level verdict alone; the document is the model's)");
  g_e2e->add_option("--torch-compile", g_flags.compile_modes,
                    "comma-separated torch.compile modes (default, reduce-overhead, max-autotune, "
                    "max-autotune-no-cudagraphs) the model is also timed in, without and with the candidate "
                    "(default: none, eager only)");
  g_e2e->add_option("--json", g_flags.json_path, "write the result document (the kernel-level one, with `e2e`)");
  g_e2e->add_option("--html", g_flags.html_path,
                    "write a self-contained HTML page of the result: the e2e verdict, each model configuration's "
                    "time and share, measured and predicted speedups, the model-level cases (as `kjudge report "
                    "RESULT.json --html` on the --json document)");
  add_eval_flags(g_e2e, g_flags.eval);
  // e2e writes no store entry, and the model's sizes are its file's: these of eval's do not apply.
  for (const char* name : {"--db", "--no-store", "--shape-scale"}) g_e2e->remove_option(g_e2e->get_option(name));
  g_flags.eval.no_store = true;
}

bool run_e2e_command_if_selected(int& status) {
  if (g_e2e == nullptr || !g_e2e->parsed()) return false;
  status = cmd_e2e(g_flags);
  return true;
}

}  // namespace kjudge::cli
