#include "judge/detail/evaluation.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "core/error.hpp"
#include "core/guardian.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "core/text.hpp"
#include "core/utc.hpp"
#include "guards/rules.hpp"
#include "oracle/qr_check.hpp"
#include "pool/failure_verdict.hpp"
#include "problem/integrity.hpp"

namespace kjudge::detail {

evaluation::evaluation(const eval_options& o) : m_o(o), m_c(check_options(o)), m_p(m_c.problem) {
  m_cx.tf32_envelope = m_c.tf32;
  for (const auto& out : m_p.outputs)
    m_cx.envelope_groups.push_back(out.envelope_group == error_group::element_wise ? 1 : 0);
  m_cx.qr_oracle = m_p.check == "qr";
  m_cx.trace = o.trace;
  // GPU MODE imports: a Python candidate gets generate_input's inputs and check_implementation's
  // judgement (C++ candidates: kjudge's distributions and the elementwise oracle).
  m_cx.generate_input = m_c.python_candidate && m_c.pyp.problem_check() ? &m_c.pyp : nullptr;
}

json evaluation::run() {
  plan();
  guardian::watch_directory(m_scratch);
  if (auto v = build_parties()) return finish(*v);
  if (auto v = launch_workers()) return finish(*v);
  if (auto v = correctness()) return finish(*v);
  if (!m_o.timing) {
    if (auto v = sanitizer()) return finish(*v);
    return finish(untimed_verdict());
  }
  if (auto v = timing()) return finish(*v);
  if (auto v = summaries()) return finish(*v);
  for (auto& pt : m_parties) pt.worker->stop();  // the GPU quiet, the secret's use over
  if (auto v = sanitizer()) return finish(*v);
  return finish(timed_verdict());
}

void evaluation::progress(const std::string& phase, int done, int total, const std::string& note) {
  const auto now = clock_type::now();
  m_phase_seconds[m_phase] += std::chrono::duration<double>(now - m_phase_mark).count();
  m_phase_mark = now;
  m_phase = phase;
  if (m_o.progress) m_o.progress(phase, done, total, note);
}

// The result document's head, and the plan of cases (the secret drawn, the shape-scale variants).
void evaluation::plan() {
  const std::string device = device_name(m_c.device);
  m_result = json{
      {"schema", "kjudge.result/1"},
      {"kjudge_version", KJUDGE_VERSION},
      {"created_at", utc_now()},
      {"problem",
       {{"name", m_p.name},
        {"dtype", std::string(dtype_name(m_c.variant))},
        {"device", device},
        {"spec", m_p.file.string()},
        {"spec_sha256", sha256_hex(read_file(m_p.file))},
        {"content_sha256", problem_content_sha256(m_p.dir)}}},
      {"candidate",
       {{"path", std::filesystem::absolute(m_o.candidate).string()}, {"sha256", m_c.candidate_sha}, {"info", ""}}},
      {"device", device},
      {"mode", mode_name(m_c.mode)},
      {"tolerance", {{"rtol", m_c.tol.rtol}, {"atol", m_c.tol.atol}, {"k", m_p.conditioning_k}, {"tf32", m_c.tf32}}},
      {"cases", json::array()},
      {"timing", nullptr},
      {"speedup", nullptr},
      {"baselines", json::array()},
      {"memory", nullptr},
      {"build", nullptr},
      {"env", nullptr}};
  if (m_c.pyp.format == "gpumode")
    m_result["problem"]["correctness"] = m_cx.generate_input != nullptr
                                             ? "check_implementation of the problem; inputs from generate_input"
                                             : "elementwise oracle against ref_kernel; inputs drawn by kjudge";
  // check = "qr": what bounds the per-matrix backward errors (src/oracle/qr_check.hpp).
  if (m_cx.qr_oracle)
    m_result["tolerance"]["qr"] =
        json{{"c", qr_check_c},
             {"n_floor", qr_check_n_floor},
             {"unit_roundoff", unit_roundoff(m_c.variant)},
             {"l1_factor_c", qr_l1_factor_c},
             {"l1_orthogonality_c", qr_l1_orth_c},
             {"bound",
              "c * max(n, n_floor) * unit_roundoff on ||A - QR||_F/||A||_F and ||Q^T Q - I||_F, and "
              "l1_factor_c * n * 2 unit_roundoff on ||R - Q^T A||_1/||A||_1, l1_orthogonality_c * n * 2 "
              "unit_roundoff on ||Q^T Q - I||_1 (GPU MODE qr_v2's gates), per matrix"}};
  plan_options po;
  po.device = device;
  po.variant = m_c.variant;
  po.secret_seed = m_o.secret_seed.value_or(fresh_secret_seed());
  po.hidden_count = m_o.hidden_count;
  m_plan = plan_cases(m_p, po);
  m_secret = po.secret_seed;
  // The secret never appears in text a party wrote that the judge keeps (core/text.hpp).
  register_secret(std::to_string(m_secret));
  register_secret(seed_hex(m_secret));
  register_secret(fmt::format("{:x}", m_secret));
  // --shape-scale (KernelBench imports, docs/python.md): hidden cases at other sizes, judged with a
  // reference (and a Python candidate) constructed under the variant's constants.
  if (m_o.shape_scale > 0 && !m_plan.public_cases.empty()) {
    progress("build", 0, 1, "--shape-scale: trying the problem's constants scaled");
    const auto h = m_p.hidden.find(device);
    m_shape_plan = plan_shape_scale(m_p, m_c.pyp, m_plan.public_cases.front(),
                                    h != m_p.hidden.end() ? h->second.distributions : std::vector<std::string>{},
                                    m_o.shape_scale, m_secret, 2);
    m_result["shape_scale"] = m_shape_plan.report;
  }
  m_scratch = cache_root() / "scratch" / (std::to_string(::getpid()) + "-" + m_c.candidate_sha.substr(0, 12));
}

// A call the sandbox refused in a candidate's process (or a process it started) is evidence
// whatever else the candidate did: the verdict is sandbox_violation (pool/syscall_monitor.hpp).
verdict evaluation::sandbox_verdict(const verdict& given) {
  json denied = json::object();
  json candidate_denied = json::array();
  for (auto& w : m_workers) {
    const auto calls = w->denied_calls();
    if (calls.empty()) continue;
    json list = json::array();
    for (const auto& d : calls) {
      json call{{"pid", d.pid}, {"syscall", d.syscall}, {"at_s", d.at_seconds}};
      if (!d.path.empty()) call["path"] = untrusted_text(d.path, 512);  // a write into another process
      list.push_back(std::move(call));
    }
    denied[w->options().scratch_dir.filename().string()] = list;
    if (w->options().role == worker_role::candidate)
      candidate_denied.insert(candidate_denied.end(), list.begin(), list.end());
  }
  if (!denied.empty()) m_result["sandbox_denied"] = denied;
  if (candidate_denied.empty()) return given;
  std::set<std::string> names;
  for (const auto& d : candidate_denied)
    names.insert(d["syscall"].get<std::string>() + (d.contains("path") ? " " + d["path"].get<std::string>() : ""));
  std::string what;
  std::size_t listed = 0;
  for (const auto& n : names) {
    if (++listed > 8) {  // a loop of attempts at distinct paths
      what += fmt::format(" and {} more", names.size() - 8);
      break;
    }
    what += (what.empty() ? "" : ", ") + n;
  }
  verdict violation;
  violation.status = rule("sandbox_violation").status;
  violation.rule = "sandbox_violation";
  violation.reasons = {
      fmt::format("the sandbox refused {} system call(s) of the candidate's processes ({}); "
                  "the verdict it would otherwise have had: {}",
                  candidate_denied.size(), what, std::string(verdict_status_name(given.status)))};
  violation.evidence = json{{"denied", candidate_denied}, {"verdict_otherwise", given.to_json()}};
  return violation;
}

json evaluation::finish(const verdict& given) {
  const verdict v = sandbox_verdict(given);
  m_result["verdict"] = v.to_json();
  m_result["time_to_verdict_s"] = since(m_start);
  m_phase_seconds[m_phase] += since(m_phase_mark);
  m_result["phases_s"] = m_phase_seconds;
  for (auto& w : m_workers) w->stop();
  // Processes a worker's group still held when it was stopped: killed then (the sandbox keeps
  // every descendant in the group), listed here by worker.
  json left = json::object();
  for (auto& w : m_workers)
    if (!w->left_behind().empty()) left[w->options().scratch_dir.filename().string()] = to_json(w->left_behind());
  if (!left.empty()) m_result["processes_left_behind"] = left;
  if (!m_c.switches.keep_scratch) {
    std::error_code ec;
    std::filesystem::remove_all(m_scratch, ec);
    guardian::forget_directory(m_scratch);
  }
  return m_result;
}

verdict evaluation::untimed_verdict() const {
  verdict v;
  v.status = verdict_status::ok_not_faster;
  v.reasons = {"correct on " + std::to_string(m_done) + " cases; not timed (--no-timing)"};
  v.timed = false;
  return v;
}

verdict evaluation::timed_verdict() const {
  const auto& head = m_head.all;
  const std::string mode = mode_name(m_c.mode);
  verdict v;
  v.status = m_with_ci && head.ci.lo > 1.0 ? verdict_status::ok_faster : verdict_status::ok_not_faster;
  if (m_with_ci)
    v.reasons = {
        fmt::format("correct on {} cases; {:.3f}x [{:.3f}, {:.3f}] against the strongest baseline (95% CI, {}, "
                    "{} rounds)",
                    m_done, head.median, head.ci.lo, head.ci.hi, mode, m_rounds)};
  else
    v.reasons = {
        fmt::format("correct on {} cases; {:.3f}x against the strongest baseline (an estimate from {} round(s), "
                    "{}: a 95% CI needs at least {} rounds, and without one nothing is shown to be faster)",
                    m_done, head.median, m_rounds, mode, stats::min_rounds_for_ci95)};
  if (m_with_ci && v.status == verdict_status::ok_not_faster && head.median > 1.0)
    v.reasons.push_back("the CI's lower bound is not above 1: not shown to be faster");
  if (!m_o.trace && m_c.device == device_kind::cuda)
    v.reasons.push_back(
        "the kernel trace was off (--no-trace): work on other streams or after the stop event, library "
        "kernels and peak memory were not checked");
  if (m_rechecks_per_round == 0)
    v.reasons.push_back(
        "timed calls were not rechecked (--rechecks 0): a candidate that changes its output when timed is not "
        "caught");
  return v;
}

worker_options evaluation::sanitizer_worker_options(const std::filesystem::path& dir,
                                                    const std::filesystem::path& report) const {
  worker_options wo;
  wo.backend = device_name(m_c.device);
  wo.library = m_cand_build.library;
  wo.role = worker_role::candidate;
  wo.arena_bytes = m_arena.cand;
  wo.memory_limit_bytes = 0;
  wo.sandbox = false;
  wo.scratch_dir = dir;
  wo.start_timeout_seconds = 300;
  wo.stop_grace_seconds = 120;
  wo.launcher = {m_c.switches.compute_sanitizer,
                 "--tool",
                 m_o.sanitize,
                 "--log-file",
                 report.string(),
                 "--print-limit",
                 "20",
                 "--error-exitcode",
                 "86"};
  if (m_o.sanitize == "memcheck") wo.launcher.insert(wo.launcher.end(), {"--leak-check", "no"});
  return wo;
}

// --sanitize: the first public and the first hidden case again, in a worker started under
// compute-sanitizer (without the sandbox: the tool's injected library talks to its front end over
// a socket). Errors it reports are a verdict; the sandboxed runs stay the judged ones. It runs
// last, after the timed rounds: an unsandboxed process of the candidate's could read the
// controller's secret (as root) and hand it to the sandboxed worker through its scratch directory
// before the rechecks are drawn from it.
phase_outcome evaluation::sanitizer() {
  if (m_o.sanitize.empty()) return std::nullopt;
  progress("sanitizer", 0, 1, "compute-sanitizer --tool " + m_o.sanitize);
  const auto dir = m_scratch / "candidate-sanitizer";
  std::filesystem::create_directories(dir);
  const auto report = dir / "sanitizer.log";
  auto started = worker_process::start(sanitizer_worker_options(dir, report));
  if (std::holds_alternative<worker_failure>(started))
    return verdict_of_failure(std::get<worker_failure>(started), "loading the candidate under compute-sanitizer");
  worker_process sw = std::get<worker_process>(std::move(started));
  json ran_cases = json::array();
  std::optional<worker_failure> died;  // the candidate's worker failed under the tool
  std::string died_during;
  for (const auto* list : {&m_plan.public_cases, &m_plan.hidden_cases}) {
    if (list->empty() || died) continue;
    const planned_case& pc = list->front();
    const call_spec call = m_cx.to_call(pc);
    const std::string ctx = "case " + pc.id + " under compute-sanitizer --tool " + m_o.sanitize;
    // The tool slows a call by 10-100x: a longer watchdog for these calls only.
    worker_reply r = sw.request(worker_client::run_request(call, 1, true), m_o.call_timeout_seconds * 50);
    ran_cases.push_back(pc.id);
    if (std::holds_alternative<worker_failure>(r)) {
      died = std::get<worker_failure>(r);
      died_during = ctx;
    } else if (auto ran = worker_client(sw).expect(std::move(r), "ran", ctx); !ran.ok()) {
      return ran.rejection();
    }
  }
  sw.stop();
  std::ifstream in(report);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const sanitizer_summary ss = parse_sanitizer_report(text);
  json ev{{"tool", m_o.sanitize}, {"cases", ran_cases}, {"errors", ss.errors}, {"report", ss.excerpt}};
  m_result["sanitizer"] = ev;
  // A worker that died under the tool: the tool's findings (a fault it names) come first, else the
  // death is the verdict as anywhere else.
  if (died && ss.errors == 0) return verdict_of_failure(*died, died_during);
  if (!ss.found_summary && !died)
    throw internal_error("compute-sanitizer wrote no summary to " + report.string() + ":\n" + text.substr(0, 2000));
  if (ss.errors > 0)
    return rule_verdict("sanitizer",
                        {"compute-sanitizer --tool " + m_o.sanitize + " reported " + std::to_string(ss.errors) +
                         " error(s) on " + ran_cases.dump() + ": " + ss.first_error},
                        ev);
  progress("sanitizer", 1, 1, "no errors");
  return std::nullopt;
}

}  // namespace kjudge::detail
