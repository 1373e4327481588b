#include "cli/commands.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <sstream>

#include "builder/builder.hpp"
#include "cli/batch_command.hpp"
#include "cli/e2e_command.hpp"
#include "cli/environment.hpp"
#include "cli/eval_flags.hpp"
#include "cli/loop_command.hpp"
#include "cli/python_commands.hpp"
#include "cli/redteam_command.hpp"
#include "cli/report_command.hpp"
#include "cli/store_command.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/json_file.hpp"
#include "core/paths.hpp"
#include "guards/rules.hpp"
#include "guards/verdict.hpp"
#include "judge/evaluate.hpp"
#include "judge/python_parties.hpp"
#include "oracle/qr_check.hpp"
#include "pool/worker_process.hpp"
#include "problem/registry.hpp"
#include "report/progress.hpp"
#include "report/report.hpp"
#include "stats/stats.hpp"
#include "store/store.hpp"
#include "timing/ceilings.hpp"

namespace kjudge::cli {

namespace {

using json = nlohmann::json;

bool color_out() {
  return ::isatty(1) == 1 && std::getenv("NO_COLOR") == nullptr;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

int cmd_list() {
  const auto all = load_all_problems();
  std::printf("%-22s %-10s %-12s %s\n", "problem", "dtypes", "check", "description");
  for (const auto& p : all)
    std::printf("%-22s %-10s %-12s %s\n", p.name.c_str(), join(p.dtypes, ",").c_str(), p.check.c_str(),
                p.description.c_str());
  // Imported problems (kjudge import), by the name `eval` takes.
  namespace fs = std::filesystem;
  const fs::path root = imported_problems_root();
  std::error_code ec;
  std::vector<fs::path> dirs;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec) && it->path().filename() == "problem.toml") dirs.push_back(it->path().parent_path());
  std::sort(dirs.begin(), dirs.end());
  if (!dirs.empty()) std::printf("\nimported (%s):\n", root.string().c_str());
  for (const auto& d : dirs) {
    const std::string name = fs::relative(d, root).string();
    try {
      const problem_spec p = load_problem(d.string());
      std::printf("%-40s %-10s %s\n", name.c_str(), join(p.dtypes, ",").c_str(), p.description.substr(0, 80).c_str());
    } catch (const std::exception& e) {
      std::printf("%-40s (cannot be loaded: %s)\n", name.c_str(), e.what());
    }
  }
  return 0;
}

std::string describe_tensors(const std::vector<tensor_spec>& ts) {
  std::string s;
  for (const auto& t : ts) {
    s += (s.empty() ? "" : ", ") + t.name + "[" + join(t.shape, ",") + "]";
    if (t.dtype != "T") s += ":" + t.dtype;
    // Integer and bool inputs: the values drawn (inputs/distributions.hpp), given or the dtype's
    // (a range is only accepted on a concrete integer or bool dtype).
    if (const auto dt = parse_dtype(t.dtype); dt && !is_float(*dt)) {
      const int_range r = t.range.value_or(default_int_range(*dt));
      s += " in [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "]" + (t.range ? "" : " (default)");
    }
    if (t.structure != matrix_structure::none) s += " " + std::string(structure_name(t.structure));
    if (!t.values.empty()) {
      std::string vs;
      for (const double v : t.values) {
        char num[32];
        std::snprintf(num, sizeof num, "%g", v);
        vs += (vs.empty() ? "" : ", ") + std::string(num);
      }
      s += " in {" + vs + "}";
    }
  }
  return s;
}

std::string describe_case(const case_spec& c) {
  std::string s;
  for (const auto& [k, v] : c.symbols) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s + "  (" + c.distribution + ")";
}

int cmd_show(const std::string& name) {
  const problem_spec p = load_problem(name);
  std::printf("%s — %s\n", p.name.c_str(), p.description.c_str());
  std::printf("  spec:       %s\n", p.file.string().c_str());
  std::printf("  dtypes:     %s%s\n", join(p.dtypes, ", ").c_str(), p.tf32_allowed ? " (TF32 permitted)" : "");
  std::printf("  inputs:     %s\n", describe_tensors(p.inputs).c_str());
  std::printf("  outputs:    %s\n", describe_tensors(p.outputs).c_str());
  std::string sc;
  for (const auto& s : p.scalars) sc += (sc.empty() ? "" : ", ") + s.name + "=" + std::to_string(s.value);
  std::printf("  scalars:    %s\n", sc.empty() ? "-" : sc.c_str());
  if (p.check == "qr")
    std::printf(
        "  check:      qr (per matrix ||A - QR||_F/||A||_F and ||Q^T Q - I||_F <= %g * max(n, %lld) * u; "
        "||R - Q^T A||_1/||A||_1 <= %g * n * eps and ||Q^T Q - I||_1 <= %g * n * eps)\n",
        qr_check_c, static_cast<long long>(qr_check_n_floor), qr_l1_factor_c, qr_l1_orth_c);
  else
    std::printf("  check:      %s (k=%g)\n", p.check.c_str(), p.conditioning_k);
  for (const auto& [d, t] : p.tolerances) std::printf("  tolerance:  %s rtol=%g atol=%g\n", d.c_str(), t.rtol, t.atol);
  std::printf("  cost:       bytes = %s; flops = %s\n", p.cost_bytes.c_str(), p.cost_flops.c_str());
  if (p.reference_cpp) std::printf("  reference:  %s\n", p.reference_cpp->string().c_str());
  if (p.reference_cu) std::printf("  reference:  %s (cuda)\n", p.reference_cu->string().c_str());
  for (const auto& b : p.baselines)
    std::printf("  baseline:   %s (%s) %s\n", b.name.c_str(), b.device.c_str(), b.source.string().c_str());
  for (const auto& c : p.public_cases) std::printf("  public:     %s\n", describe_case(c).c_str());
  for (const auto& [dev, cases] : p.bench_cases)
    for (const auto& c : cases) std::printf("  bench %-4s  %s\n", dev.c_str(), describe_case(c).c_str());
  for (const auto& [dev, h] : p.hidden) {
    std::string r;
    for (const auto& x : h.ranges)
      r += (r.empty() ? "" : " ") + x.symbol + "∈[" + std::to_string(x.min) + "," + std::to_string(x.max) + "]";
    std::printf("  hidden %-4s %d cases, %s, ≤%lld elements, distributions: %s\n", dev.c_str(), h.count, r.c_str(),
                static_cast<long long>(h.max_elements), join(h.distributions, ", ").c_str());
  }
  return 0;
}

result_document run_eval(const eval_flags& f, const std::string& problem, const std::string& candidate,
                         const std::string& label) {
  eval_options o = to_options(f, problem, candidate);
  progress_line pl(!f.quiet);
  o.progress = [&](const std::string& phase, int done, int total, const std::string& note) {
    pl.update(label, phase, done, total, note);
  };
  result_document r = evaluate(o);
  pl.clear();
  return r;
}

void store_result(const eval_flags& f, const result_document& r, const json& doc, const std::string& candidate) {
  if (f.no_store) return;
  if (r.verdict.status == verdict_status::bad_input) return;
  store db(f.db_path.empty() ? default_db_path() : std::filesystem::path(f.db_path));
  std::string source;
  try {
    source = read_file(candidate);
  } catch (const std::exception&) {
  }
  db.add_evaluation(doc, source);
}

int cmd_eval(const eval_flags& f, const std::string& problem, const std::string& candidate) {
  const result_document r = run_eval(f, problem, candidate, std::filesystem::path(candidate).filename().string());
  const json doc = r.to_json();
  store_result(f, r, doc, candidate);
  // --json -: the result document is standard output, and the summary goes to standard error.
  const bool json_to_stdout = f.json_path == "-";
  if (!f.json_path.empty() && !json_to_stdout) write_json_file(f.json_path, doc);
  if (!f.md_path.empty()) {
    std::ofstream md(f.md_path);
    if (!md) throw usage_error(f.md_path + ": cannot be written");
    md << render_markdown(doc);
  }
  if (json_to_stdout) {
    std::cout << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    std::cerr << render_console(doc, false);
  } else {
    std::cout << render_console(doc, color_out());
  }
  return r.exit_status();
}

// Where an A/A's time went (a level takes hours of device time: this says which phase to make
// cheaper).
void print_where_the_time_went(const result_document& r) {
  if (!r.time_to_verdict_s) return;
  const auto seconds_list = [](const std::map<std::string, double>& by_phase) {
    std::string out;
    for (const auto& [k, v] : by_phase) {
      char num[32];
      std::snprintf(num, sizeof num, "%.1f", v);
      out += (out.empty() ? "" : ", ") + k + " " + num;
    }
    return out;
  };
  const std::string phases = r.phases_s ? seconds_list(*r.phases_s) : "";
  std::printf("    time to verdict %.1f s%s%s\n", *r.time_to_verdict_s,
              phases.empty() ? "" : "; phases (s): ", phases.c_str());
  // The rechecks of the timed calls (one reference run and transfer each): in the timing phase
  // above, but on a device-sized case most of it.
  if (!r.timing || !r.timing->rechecks.is_object()) return;
  const json& rc = r.timing->rechecks;
  std::map<std::string, double> parts;
  if (rc.contains("phases_s") && rc["phases_s"].is_object())
    for (const auto& [k, v] : rc["phases_s"].items())
      if (v.is_number()) parts[k] = v.get<double>();
  std::printf("    rechecks %d: %.1f s (%s); samples %.1f s\n", rc.value("count", 0), rc.value("seconds", 0.0),
              seconds_list(parts).c_str(), r.timing->extra.value("sample_requests_s", 0.0));
}

// Each party's median per timed case, with its SM clock where the backend reads one: an A/A's
// bias shows here as one party slower at the same clock (its process or its code) or at a lower
// clock (the GPU's state while it ran).
void print_party_medians(const result_document& r) {
  if (!r.timing) return;
  for (const auto& tc : r.timing->cases) {
    std::string parts;
    const auto party = [&](const std::string& name, const result_samples& st) {
      if (!st.median_s) return;
      char num[96];
      std::snprintf(num, sizeof num, "%s %.4f ms", name.c_str(), *st.median_s * 1e3);
      parts += (parts.empty() ? "" : ", ") + std::string(num);
      if (st.sm_mhz.is_object()) {
        std::snprintf(num, sizeof num, " at SM %.0f MHz [%.0f, %.0f]", st.sm_mhz.value("median", 0.0),
                      st.sm_mhz.value("min", 0.0), st.sm_mhz.value("max", 0.0));
        parts += num;
      }
    };
    if (tc.candidate) party("candidate", *tc.candidate);
    for (const auto& b : tc.baselines) party(b.name.value_or("baseline"), b);
    if (!parts.empty()) std::printf("    %s: %s\n", tc.id.value_or("case").c_str(), parts.c_str());
  }
}

// Imported problems (kjudge import) under imported_problems_root()/PREFIX, sorted by path.
std::vector<std::filesystem::path> imported_problem_dirs(const std::string& prefix) {
  namespace fs = std::filesystem;
  std::vector<fs::path> dirs;
  const fs::path root = imported_problems_root() / prefix;
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    throw usage_error("validate --all " + prefix + ": no imported problems under " + root.string() +
                      " (import them first: kjudge import kernelbench|gpumode ...)");
  for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec) break;
    if (it->is_regular_file(ec) && it->path().filename() == "problem.toml") dirs.push_back(it->path().parent_path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

// One problem `kjudge validate` judges; a problem that does not load is kept, with its error.
struct validate_target {
  std::string label;
  std::filesystem::path dir;
  std::optional<problem_spec> spec;
  std::string load_error;
};

// `--all` alone walks the suite; `--all PREFIX` every imported problem under PREFIX (for
// instance kb/level1 after `kjudge import kernelbench`).
std::vector<validate_target> validate_targets(const std::string& problem, bool all) {
  std::vector<validate_target> targets;
  if (all && !problem.empty()) {
    for (const auto& d : imported_problem_dirs(problem)) {
      validate_target t{std::filesystem::relative(d, imported_problems_root()).string(), d, std::nullopt, ""};
      try {
        t.spec = load_problem(d.string());
      } catch (const std::exception& e) {
        t.load_error = e.what();
      }
      targets.push_back(std::move(t));
    }
  } else if (all) {
    for (auto& p : load_all_problems()) targets.push_back({p.name, p.dir, p, ""});
  } else {
    auto p = load_problem(problem);
    targets.push_back({p.name, p.dir, p, ""});
  }
  return targets;
}

// --part I/N: the problems whose index in the sorted list is I modulo N (complementary parts
// spread a level over several runs, e.g. one per device lease).
void pick_part(std::vector<validate_target>& targets, const std::string& part, std::size_t found) {
  unsigned i = 0, n = 0;
  char slash = 0;
  std::istringstream ps(part);
  if (!(ps >> i >> slash >> n) || slash != '/' || n == 0 || i >= n || !ps.eof())
    throw usage_error("--part " + part + ": expected I/N with 0 <= I < N, e.g. 0/3");
  std::vector<validate_target> picked;
  for (std::size_t k = 0; k < targets.size(); ++k)
    if (k % n == i) picked.push_back(std::move(targets[k]));
  targets = std::move(picked);
  std::printf("--part %s: %zu of the %zu problems found\n", part.c_str(), targets.size(), found);
}

// Evenly spaced over the sorted list (the first included): a level's early and late problems
// alike, the same ones on every run.
void pick_sample(std::vector<validate_target>& targets, int sample, std::size_t found) {
  std::vector<validate_target> picked;
  const std::size_t have = targets.size();
  for (int i = 0; i < sample; ++i)
    picked.push_back(std::move(targets[static_cast<std::size_t>(i) * have / static_cast<std::size_t>(sample)]));
  targets = std::move(picked);
  std::printf("--sample %d: %zu of the %zu problems, evenly spaced\n", sample, targets.size(), found);
}

// What the A/A run over all targets found.
struct validate_tally {
  int failures = 0;
  int timed = 0;        // problems with a ratio
  int within_band = 0;  // of those, ratio in [0.98, 1.02]
  std::vector<std::string> failed;

  void fail(const std::string& line) {
    failed.push_back(line);
    ++failures;
  }
};

// The A/A candidate and the party it is read against: the C++ (or, on cuda, CUDA) reference
// against the "reference" party; an imported problem's Python reference against torch:eager (the
// same module, eager: imported problems have no native reference). Nullopt: no reference to judge.
struct aa_pair {
  std::filesystem::path cand;
  std::string against;
  eval_flags flags;
};

std::optional<aa_pair> aa_pair_of(const eval_flags& f, const problem_spec& p) {
  const python_problem pyp = python_problem_of(p);
  aa_pair a{{}, {}, f};
  a.flags.no_store = true;
  if (!pyp.format.empty() && !p.reference_cpp) {
    a.cand = pyp.file;
    a.against = "torch:eager";
    a.flags.torch = "torch:eager";
  } else if (p.reference_cpp) {
    a.cand = f.device == "cuda" && p.reference_cu ? *p.reference_cu : *p.reference_cpp;
    a.against = "reference";
  } else {
    return std::nullopt;
  }
  return a;
}

// The verdict on an A/A with a ratio and its CI: ok when the ratio is in [0.98, 1.02] and the CI
// contains 1.
struct aa_ratio_verdict {
  std::string line;
  bool ok = false;
  bool in_band = false;
};

aa_ratio_verdict aa_ratio_line(const std::string& label, const result_document& r, const result_speedup_figure& s,
                               const std::string& against, int rounds, const std::string& mode) {
  const double med = *s.median, lo = s.ci95->first, hi = s.ci95->second;
  const bool in_band = med >= 0.98 && med <= 1.02;
  const bool ok = in_band && lo <= 1.0 && hi >= 1.0;
  // Enough decimals that the printed CI says what the criterion saw: at 4, a CI of
  // [0.99991, 0.99998] printed as [0.9999, 1.0000] and seemed to contain 1 (KernelBench #42).
  int digits = 4;
  const auto shown = [&](double v) { return std::round(v * std::pow(10.0, digits)) / std::pow(10.0, digits); };
  while (digits < 8 && (shown(lo) <= 1.0 && shown(hi) >= 1.0) != (lo <= 1.0 && hi >= 1.0)) ++digits;
  // --worker-epochs: each set of workers' own ratio, so that a spread between processes shows.
  std::string sets;
  if (s.epoch_medians && s.epoch_medians->size() > 1) {
    for (const double m : *s.epoch_medians) {
      char num[32];
      std::snprintf(num, sizeof num, "%.4f", m);
      sets += (sets.empty() ? "" : ", ") + std::string(num);
    }
    sets = ", " + std::to_string(s.epoch_medians->size()) + " sets of workers: " + sets;
    if (const std::string note = process_spread_note(r.to_json()); !note.empty()) sets += "; " + note;
  }
  char line[1024];
  std::snprintf(line, sizeof line, "%-34s %-4s  ratio %.*f  95%% CI [%.*f, %.*f] against %s (%d rounds, %s%s)",
                label.c_str(), ok ? "ok" : "FAIL", digits, med, digits, lo, digits, hi, against.c_str(), rounds,
                mode.c_str(), sets.c_str());
  return {line, ok, in_band};
}

// Judges one target's reference against itself, prints its line and details, and counts it.
void validate_one(const eval_flags& f, const validate_target& t, const std::string& results_dir,
                  validate_tally& tally) {
  char line[1024];
  const auto print_failure = [&] {
    std::printf("%s\n", line);
    tally.fail(line);
  };
  if (!t.spec) {
    std::snprintf(line, sizeof line, "%-34s FAIL  the problem does not load: %s", t.label.c_str(),
                  t.load_error.c_str());
    return print_failure();
  }
  const problem_spec& p = *t.spec;
  const std::optional<aa_pair> aa = aa_pair_of(f, p);
  if (!aa) {
    std::snprintf(line, sizeof line, "%-34s FAIL  no reference to judge as a candidate", t.label.c_str());
    return print_failure();
  }
  result_document r;
  try {
    r = run_eval(aa->flags, p.dir.string(), aa->cand.string(), t.label + " (A/A)");
    if (!results_dir.empty()) {
      std::string name = t.label;
      std::replace(name.begin(), name.end(), '/', '_');
      write_json_file((std::filesystem::path(results_dir) / (name + ".json")).string(), r.to_json());
    }
  } catch (const std::exception& e) {
    std::snprintf(line, sizeof line, "%-34s FAIL  %s", t.label.c_str(), e.what());
    return print_failure();
  }
  const std::string st(verdict_status_name(r.verdict.status));
  const result_speedup_figure* s = nullptr;  // the A/A's ratio: the candidate against its own code
  if (r.speedup && r.speedup->per_baseline)
    if (const auto it = r.speedup->per_baseline->find(aa->against); it != r.speedup->per_baseline->end())
      s = &it->second;
  const int rounds = r.timing ? static_cast<int>(r.timing->rounds.value_or(0)) : 0;
  if (f.no_timing && r.verdict.ok()) {
    // --no-timing: the reference's correctness against itself only; no ratio to judge.
    std::snprintf(line, sizeof line, "%-34s ok    correct on every case (--no-timing: no ratio)", t.label.c_str());
  } else if (!r.verdict.ok() || s == nullptr || !s->median) {
    std::snprintf(line, sizeof line, "%-34s FAIL  verdict %s: %s", t.label.c_str(), st.c_str(),
                  r.verdict.reasons.empty() ? "" : r.verdict.reasons[0].c_str());
    tally.fail(line);
  } else if (!s->ci95) {
    // Too few rounds for a CI (--rounds below stats::min_rounds_for_ci95): nothing to validate by.
    std::snprintf(line, sizeof line, "%-34s FAIL  no 95%% CI from %d round(s) (at least %d needed)", t.label.c_str(),
                  rounds, stats::min_rounds_for_ci95);
    tally.fail(line);
  } else {
    const aa_ratio_verdict v = aa_ratio_line(t.label, r, *s, aa->against, rounds, f.mode);
    std::snprintf(line, sizeof line, "%s", v.line.c_str());
    ++tally.timed;
    if (v.in_band) ++tally.within_band;
    if (!v.ok) tally.fail(line);
  }
  std::printf("%s\n", line);
  print_where_the_time_went(r);
  print_party_medians(r);
  // The kernel census's comparison of the two parties running the same code (the A/A's pair):
  // whether a difference between them is in the kernels launched, their times or the window.
  if (r.timing && r.timing->extra.contains("kernel_census"))
    for (const auto& l : kernel_census_lines(r.timing->extra["kernel_census"])) std::printf("    %s\n", l.c_str());
  std::fflush(stdout);
}

void print_validate_summary(std::size_t found, std::size_t judged, const validate_tally& tally) {
  std::printf(
      "%zu problem(s) found, %zu judged, %d validated, %d failed (criterion: ratio in [0.98, 1.02] and the CI contains "
      "1)\n",
      found, judged, static_cast<int>(judged) - tally.failures, tally.failures);
  if (tally.timed > 0)
    std::printf("ratio within [0.98, 1.02] on %d of the %d problems timed (whatever their CI)\n", tally.within_band,
                tally.timed);
  if (!tally.failed.empty() && judged > 1) {
    std::printf("failures:\n");
    for (const auto& l : tally.failed) std::printf("  %s\n", l.c_str());
  }
}

int cmd_validate(const eval_flags& f, const std::string& problem, bool all, int sample, const std::string& part,
                 const std::string& results_dir) {
  if (!all && problem.empty()) throw usage_error("validate: give a PROBLEM or --all");
  std::vector<validate_target> targets = validate_targets(problem, all);
  const std::size_t found = targets.size();
  if (!part.empty()) pick_part(targets, part, found);
  if (sample > 0 && static_cast<std::size_t>(sample) < targets.size()) pick_sample(targets, sample, found);
  std::printf("A/A validation: the reference judged as a candidate against itself (%s, %s)\n", f.device.c_str(),
              f.mode.c_str());
  validate_tally tally;
  for (const auto& t : targets) validate_one(f, t, results_dir, tally);
  print_validate_summary(found, targets.size(), tally);
  return tally.failures == 0 ? 0 : 1;
}

int cmd_history(const std::string& problem, const std::string& db_path, int limit) {
  store db(db_path.empty() ? default_db_path() : std::filesystem::path(db_path));
  // The name as `eval` takes it (a suite name, "kb/level1/19_ReLU", a directory) or as stored
  // (the spec's own name, "kb.level1.19_ReLU").
  std::string name = problem;
  std::string spec_sha;
  try {
    const problem_spec p = load_problem(problem);
    name = p.name;
    spec_sha = sha256_hex(read_file(p.file));
  } catch (const usage_error&) {  // not loadable now (renamed, removed): the name as stored
  }
  const auto rows = db.history(name, limit);
  if (rows.empty()) {
    std::printf("no evaluations of %s in %s\n", name.c_str(), store::display_name(db.path().string()).c_str());
    return 0;
  }
  std::cout << render_history(rows, spec_sha);
  return 0;
}

int cmd_doctor(const std::string& device) {
  if (device == "cuda") {
    // The controller never links CUDA: a cuda worker with the doctor role measures.
    worker_options wo;
    wo.backend = "cuda";
    wo.role = worker_role::doctor;
    wo.memory_limit_bytes = 0;
    wo.sandbox = false;
    wo.scratch_dir = cache_root() / "scratch" / ("doctor-" + std::to_string(::getpid()));
    auto w = worker_process::start(wo);
    if (std::holds_alternative<worker_failure>(w))
      throw internal_error("the cuda worker did not start: " + std::get<worker_failure>(w).message + "\n" +
                           std::get<worker_failure>(w).log_tail);
    auto& wp = std::get<worker_process>(w);
    auto r = wp.request(json{{"type", "doctor"}}, 300);
    if (std::holds_alternative<worker_failure>(r))
      throw internal_error("doctor failed: " + std::get<worker_failure>(r).message);
    const json reply = std::get<json>(r);
    const auto c = device_ceilings::from_json(reply.at("ceilings"));
    save_ceilings(c);
    std::printf("gpu:        %s\n", c.identity.c_str());
    std::printf("copy:       %.1f GB/s (device to device, bytes read + written)\n", c.copy_gbps);
    if (c.fp32_gflops) std::printf("fp32:       %.1f TFLOP/s (cuBLAS)\n", *c.fp32_gflops / 1e3);
    if (c.tf32_gflops) std::printf("tf32:       %.1f TFLOP/s (cuBLAS)\n", *c.tf32_gflops / 1e3);
    if (c.bf16_gflops) std::printf("bf16:       %.1f TFLOP/s (cuBLAS)\n", *c.bf16_gflops / 1e3);
    std::printf("details:    %s\n", c.details.dump().c_str());
    std::printf("cached in:  %s\n", (cache_root() / "ceilings-cuda.json").string().c_str());
    return 0;
  }
  std::printf("measuring the cpu ceilings (copy bandwidth, all threads)...\n");
  const auto c = measure_cpu_ceilings();
  save_ceilings(c);
  std::printf("cpu:        %s\n", c.identity.c_str());
  std::printf("copy:       %.1f GB/s (bytes read + written; best of 7, median %.1f, min %.1f)\n", c.copy_gbps,
              c.details["median_gbps"].get<double>(), c.details["min_gbps"].get<double>());
  std::printf("load:       %.2f cores used by other processes meanwhile%s\n",
              c.details["load"]["other_cores"].get<double>(),
              c.measured_under_load() ? " (under load: evaluations will measure again)" : "");
  std::printf("cached in:  %s\n", (cache_root() / "ceilings-cpu.json").string().c_str());
  return 0;
}

// `kjudge build FILE...`: compiles candidates (or references, baselines) with the judge's own
// builder and flags, the cache included, without running them; the ptxas resources of each
// kernel on cuda. Exit 0 when every file compiles, 1 otherwise.
int cmd_build(const std::vector<std::string>& files, const std::string& device, int jobs) {
  if (files.empty()) throw usage_error("build: give one or more source files");
  std::vector<std::future<build_result>> results(files.size());
  const std::size_t width = static_cast<std::size_t>(std::max(1, jobs));
  auto launch = [&](std::size_t i) {
    results[i] = std::async(std::launch::async, [&files, &device, i] {
      return build_candidate(build_request{files[i], device});
    });
  };
  for (std::size_t i = 0; i < std::min(width, files.size()); ++i) launch(i);
  int failed = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    build_result b;
    try {
      b = results[i].get();
    } catch (const std::exception& e) {
      b.ok = false;
      b.diagnostics = e.what();
    }
    if (i + width < files.size()) launch(i + width);
    std::printf("%-4s %s  (%s, %.1f s)\n", b.ok ? "ok" : "FAIL", files[i].c_str(), b.cached ? "cached" : "compiled",
                b.seconds);
    if (b.resources.is_array())
      for (const auto& r : b.resources)
        if (r.is_object())
          std::printf("       %s: %d registers, spills %d B stored / %d B loaded, %d B shared, %d B stack\n",
                      r.value("kernel", std::string("?")).c_str(), r.value("registers", 0),
                      r.value("spill_store_bytes", 0), r.value("spill_load_bytes", 0), r.value("shared_bytes", 0),
                      r.value("stack_bytes", 0));
    if (!b.ok) {
      ++failed;
      std::string d = b.diagnostics;
      if (d.size() > 4000) d = d.substr(0, 4000) + "\n[... truncated]";
      std::printf("%s\n", d.c_str());
    }
    std::fflush(stdout);
  }
  std::printf("%zu file(s): %zu compiled, %d failed (%s)\n", files.size(),
              files.size() - static_cast<std::size_t>(failed), failed, device.c_str());
  return failed == 0 ? 0 : 1;
}

int cmd_rules() {
  for (const auto& r : all_rules())
    std::printf("%-22s %-14s %s\n", std::string(r.name).c_str(), std::string(verdict_status_name(r.status)).c_str(),
                std::string(r.description).c_str());
  return 0;
}

// Judges every shipped example (examples/<problem>/*.cpp, or *.cu on cuda) and prints the
// verdict table; results go to the store.
int cmd_demo(const eval_flags& f, const std::string& examples_dir) {
  namespace fs = std::filesystem;
  const fs::path root = examples_dir.empty() ? fs::path(KJUDGE_SOURCE_DIR) / "examples" : fs::path(examples_dir);
  if (!fs::is_directory(root)) throw usage_error(root.string() + ": no such directory");
  const std::string ext = f.device == "cuda" ? ".cu" : ".cpp";
  std::vector<std::pair<std::string, fs::path>> jobs;
  // examples/<problem>/ only: other folders there (templates/ of the autotune proposer,
  // proposers/) hold no candidates of a problem of that name.
  const auto suite = problem_names();
  for (const auto& pd : fs::directory_iterator(root)) {
    if (!pd.is_directory()) continue;
    if (std::find(suite.begin(), suite.end(), pd.path().filename().string()) == suite.end()) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(pd.path()))
      if (e.path().extension() == ext) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) jobs.emplace_back(pd.path().filename().string(), file);
  }
  std::sort(jobs.begin(), jobs.end());
  std::printf("kjudge demo: %zu example candidates on %s (%s timing, budget %.1f s each)\n", jobs.size(),
              f.device.c_str(), f.mode.c_str(), f.budget);
  std::fflush(stdout);
  std::vector<json> results;
  int i = 0;
  for (const auto& [problem, file] : jobs) {
    ++i;
    const std::string label =
        "[" + std::to_string(i) + "/" + std::to_string(jobs.size()) + "] " + problem + "/" + file.filename().string();
    const result_document r = run_eval(f, problem, file.string(), label);
    json doc = r.to_json();
    store_result(f, r, doc, file.string());
    std::printf("%-48s %s%s\n", label.c_str(), std::string(verdict_status_name(r.verdict.status)).c_str(),
                r.verdict.rule ? (" (" + *r.verdict.rule + ")").c_str() : "");
    std::fflush(stdout);
    results.push_back(std::move(doc));
  }
  std::printf("\n");
  std::cout << render_verdict_table(results, color_out());
  std::printf("results stored in %s\n",
              store::display_name((f.db_path.empty() ? default_db_path() : fs::path(f.db_path)).string()).c_str());
  return 0;
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{
      "kjudge — a judge for compute kernels: correct on every valid input, and really faster than the strongest "
      "baseline?"};
  app.require_subcommand(1);
  app.footer("\n" + environment_help());
  app.set_version_flag("--version", std::string("kjudge ") + KJUDGE_VERSION);

  app.add_subcommand("list", "list the problems of the suite and the imported ones");
  auto* show = app.add_subcommand("show", "show a problem's signature, cases, tolerances and cost model");
  std::string problem, candidate;
  show->add_option("PROBLEM", problem, "suite name or path to a problem directory")->required();

  eval_flags ef;
  auto* eval =
      app.add_subcommand("eval", "judge a candidate: exit 0 correct, 1 rejected, 2 bad input, 3 internal error");
  eval->add_option("PROBLEM", problem, "suite name or path to a problem directory")->required();
  eval->add_option("CANDIDATE", candidate, "candidate source (.cpp for cpu, .cu for cuda)")->required();
  add_eval_flags(eval, ef);
  eval->add_option("--json", ef.json_path,
                   "write the result document (schema kjudge.result/1) to FILE; '-': to standard output, the summary "
                   "then to standard error");
  eval->add_option("--md", ef.md_path, "write a Markdown report");

  eval_flags vf;
  bool all = false;
  auto* validate = app.add_subcommand("validate", "A/A check: the reference judged as a candidate; ratio and CI");
  validate->add_option("PROBLEM", problem,
                       "suite name or path; with --all, a prefix of imported problems (e.g. kb/level1)");
  validate->add_flag("--all", all, "every problem of the suite, or with PREFIX every imported problem under it");
  int sample = 0;
  validate->add_option("--sample", sample, "with --all: judge only N problems, evenly spaced over the sorted list")
      ->check(CLI::Range(1, 100000));
  std::string part;
  validate->add_option("--part", part,
                       "with --all: judge only part I of N (the problems at index I modulo N), e.g. 0/3");
  std::string results_dir;
  validate->add_option(
      "--results", results_dir,
      "write each problem's result document (schema kjudge.result/1) into DIR, named after the problem");
  add_eval_flags(validate, vf);

  std::string db_path;
  int limit = 20;
  auto* history = app.add_subcommand("history", "past evaluations of a problem from the store");
  history->add_option("PROBLEM", problem, "problem name")->required();
  history->add_option("--db", db_path, "result store: SQLite file or postgresql:// URL (default: $KJUDGE_DB)");
  history->add_option("--limit", limit, "rows to show");

  app.add_subcommand("rules", "the named correctness and anti-cheat rules");

  std::vector<std::string> build_files;
  std::string build_device = "cpu";
  int build_jobs = 2;
  auto* build = app.add_subcommand("build", "compile sources with the judge's builder and flags, without running them");
  build->add_option("FILE", build_files, "candidate, reference or baseline sources (.cpp for cpu, .cu for cuda)")
      ->required();
  build->add_option("--device", build_device, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  build->add_option("-j,--jobs", build_jobs, "compilers at once")->check(CLI::Range(1, 64));

  std::string doctor_device = "cpu";
  auto* doctor = app.add_subcommand("doctor", "measure and cache the device ceilings (speed of light)");
  doctor->add_option("--device", doctor_device, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));

  eval_flags df;
  df.budget = 3.0;
  std::string examples_dir;
  auto* demo =
      app.add_subcommand("demo", "judge the shipped examples (honest and cheating) and print the verdict table");
  add_eval_flags(demo, df);
  demo->add_option("--examples", examples_dir, "examples directory (default: the repository's examples/)");

  add_batch_command(app);
  add_loop_command(app);
  add_python_commands(app);
  add_redteam_command(app);
  add_e2e_command(app);
  add_report_command(app);
  add_store_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  int sub_status = 0;
  if (run_batch_command_if_selected(sub_status, argc, argv)) return sub_status;
  if (run_loop_command_if_selected(sub_status)) return sub_status;
  if (run_python_command_if_selected(sub_status)) return sub_status;
  if (run_redteam_command_if_selected(sub_status)) return sub_status;
  if (run_e2e_command_if_selected(sub_status)) return sub_status;
  if (run_report_command_if_selected(sub_status)) return sub_status;
  if (run_store_command_if_selected(sub_status)) return sub_status;
  if (app.got_subcommand("list")) return cmd_list();
  if (app.got_subcommand("show")) return cmd_show(problem);
  if (app.got_subcommand("eval")) return cmd_eval(ef, problem, candidate);
  if (app.got_subcommand("validate")) return cmd_validate(vf, problem, all, sample, part, results_dir);
  if (app.got_subcommand("history")) return cmd_history(problem, db_path, limit);
  if (app.got_subcommand("rules")) return cmd_rules();
  if (app.got_subcommand("build")) return cmd_build(build_files, build_device, build_jobs);
  if (app.got_subcommand("doctor")) return cmd_doctor(doctor_device);
  if (app.got_subcommand("demo")) return cmd_demo(df, examples_dir);
  return 2;
}

}  // namespace kjudge::cli
