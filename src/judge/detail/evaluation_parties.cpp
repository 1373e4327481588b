// The phases that build the parties and launch their workers (evaluation.hpp).
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/text.hpp"
#include "judge/detail/evaluation.hpp"
#include "pool/failure_verdict.hpp"

namespace kjudge::detail {

namespace {

json environment_json(const json& worker_env) {
  utsname u{};
  ::uname(&u);
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  json env = worker_env;
  env["host"] = host;
  env["os"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  env["kjudge_version"] = KJUDGE_VERSION;
  return env;
}

std::string gib(std::uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  return buf;
}

}  // namespace

std::variant<worker_process, worker_failure> awaited(std::variant<worker_process, worker_failure>&& started) {
  if (std::holds_alternative<worker_process>(started))
    if (auto f = std::get<worker_process>(started).await_ready()) started = std::move(*f);
  return std::move(started);
}

// Build: the reference and baselines (trusted, cached) and the candidate.
phase_outcome evaluation::build_parties() {
  progress("build", 0, 1, m_o.candidate.filename().string());
  const bool cuda = m_c.device == device_kind::cuda;
  const std::string device = device_name(m_c.device);
  // On cuda the reference runs on the device (docs/cuda-evaluate-integration.md): its worker draws
  // the inputs with the same device generator as the candidate's and computes the fp64 and
  // same-dtype outputs there; reference.cu is also the "reference" baseline.
  m_device_reference = !m_c.python_reference && cuda && m_p.reference_cu.has_value();
  // A Python reference on cuda runs in torch on the device (float64 there too), unless asked not
  // to, or the problem draws its own inputs on the host (GPU MODE's generate_input).
  m_python_device_reference = m_c.python_reference && cuda && !m_o.host_reference && !m_c.pyp.problem_check();
  m_result["reference_device"] = m_device_reference || m_python_device_reference ? "cuda" : "cpu";
  m_ref_source = m_c.python_reference ? m_c.pyp.file : m_device_reference ? *m_p.reference_cu : *m_p.reference_cpp;
  // The parties compile at once (nvcc is one process per source; a cold cache otherwise pays the
  // compiles one after another in the time to verdict): the candidate and the baselines in the
  // background, the reference here. Baselines are built only when timed.
  std::future<build_result> cand_future =
      std::async(std::launch::async, [&o = m_o, python = m_c.python_candidate, device] {
        return python ? python_build_result(o.candidate) : build_candidate(build_request{o.candidate, device});
      });
  if (m_o.timing)
    for (const auto& b : m_p.baselines)
      if (b.device == device)
        m_baseline_builds[b.name] = std::async(std::launch::async, [src = b.source, device] {
                                      return build_candidate(build_request{src, device});
                                    }).share();
  m_ref_build = m_c.python_reference
                    ? python_build_result(m_ref_source)
                    : build_candidate(build_request{m_ref_source, m_device_reference ? "cuda" : "cpu"});
  m_cand_build = cand_future.get();
  if (!m_ref_build.ok)
    throw internal_error("the reference of " + m_p.name + " does not compile:\n" + m_ref_build.diagnostics);
  m_result["build"] = json{{"compiler", m_cand_build.compiler},
                           {"command", m_cand_build.command},
                           {"seconds", m_cand_build.seconds},
                           {"cached", m_cand_build.cached},
                           {"resources", m_cand_build.resources}};
  // A cached build that failed its check was rebuilt (builder.hpp): said here, per party.
  for (const auto* b : {&m_cand_build, &m_ref_build})
    if (!b->cache_note.empty()) m_result["build"]["cache_notes"].push_back(b->cache_note);
  progress("build", 1, 1, m_cand_build.cached ? "cached" : "compiled");
  m_cx.library = library_policy{};
  if (!m_p.library_kernels && cuda && !m_c.python_candidate) {
    m_cx.library.forbid = true;
    if (m_cand_build.resources.is_array())
      for (const auto& r : m_cand_build.resources)
        if (r.is_object() && r.contains("kernel")) m_cx.library.own_kernels.push_back(r["kernel"].get<std::string>());
  }
  if (!m_cand_build.ok) {
    std::string diag = m_cand_build.diagnostics;
    if (diag.size() > 8000) diag = diag.substr(0, 8000) + "\n[... truncated]";
    return verdict{verdict_status::compile_error,
                   "",
                   {m_cand_build.timed_out ? "compilation timed out" : "compilation failed", diag},
                   nullptr};
  }
  size_arenas();
  plan_host_memory();
  return std::nullopt;
}

// Arenas, per role, for the largest call of the plan each role makes: the reference's layout (and,
// pinned on a device, its slots up to the perturbed runs, which only a full envelope fills), the
// candidate's with a repeat, a timed party's for one call (its outputs stay in device snapshots
// there: nothing pinned). One size for all was the reference's, pinned whole in every worker: ~90
// GB of page-locked memory on a KernelBench case of 1e9 elements.
void evaluation::size_arenas() {
  arena_sizes& a = m_arena;
  auto account = [&](const planned_case& c) {
    const call_spec s = m_cx.to_call(c);
    const auto rl = reference_layout(s, m_cx.tf32_envelope);
    a.ref = std::max(a.ref, layout_bytes(rl));
    std::size_t pin_end = 0;
    for (const auto& slot : rl)
      if (slot.kind != slot_kind::ref_perturbed) pin_end = std::max(pin_end, slot.offset + slot.bytes);
    a.ref_pin = std::max(a.ref_pin, pin_end);
    a.cand = std::max(a.cand, layout_bytes(candidate_layout(s, 2)));
  };
  for (const auto& c : m_plan.public_cases) account(c);
  for (const auto& c : m_plan.hidden_cases) account(c);
  for (const auto& c : m_plan.bench_cases) account(c);
  for (const auto& v : m_shape_plan.variants)
    for (const auto& c : v.cases) account(c);
  for (const auto& c : m_plan.bench_cases)
    a.timed = std::max(a.timed, layout_bytes(candidate_layout(m_cx.to_call(c), 1)));
  if (!m_plan.public_cases.empty())  // timed in place of bench cases when a problem has none
    a.timed = std::max(a.timed, layout_bytes(candidate_layout(m_cx.to_call(m_plan.public_cases.back()), 1)));
}

// Host memory the evaluation will touch at its largest call: the reference worker's arena (inputs,
// same-dtype, perturbed and float64 outputs), the candidate's (two output sets, the inputs read
// back) and each baseline's (one output set and the inputs); the controller reads them in place. A
// device-sized case can need more than the machine has (KernelBench level 1 has 7.5 GB inputs);
// the kernel's OOM killer would then end the evaluation without a word, so it is refused here
// with the figures.
//
// The candidate is timed in a fresh worker of its own, started with the baselines', not in the
// worker that ran the correctness checks: a timed party's process then has the same history as
// every baseline's (loaded, warmed up, timed). On the H200 the A/A of KernelBench #61
// (conv_transpose3d, 9 ms) timed in the correctness worker moved by 3.9% between runs with the
// candidate slower on average by 1.5% over six runs, each run's CI a few 0.01% wide
// (docs/notebook/2026-12-03-fresh-timing-worker.md). The plan says whether that worker fits beside
// the checks' worker.
void evaluation::plan_host_memory() {
  std::size_t n_torch = 0;
  if (!m_c.pyp.format.empty()) {
    const auto kinds =
        m_o.torch_baselines.empty() ? default_torch_baselines(device_name(m_c.device)) : m_o.torch_baselines;
    n_torch = kinds.size() == 1 && kinds[0] == "none" ? 0 : kinds.size();
  }
  const bool fresh_timing_worker = m_c.switches.fresh_timing_worker;
  host_memory_plan& hp = m_memory;
  const std::uint64_t avail = mem_available_bytes(m_c.switches);
  hp.available = avail;
  if (avail == 0) return;  // not Linux's /proc: nothing to compare with
  std::uint64_t worst = 0, worst_beside = 0;
  std::string worst_case;
  // Besides the candidate: the reference as a baseline (a native reference), the vendor baselines
  // and the torch parties.
  const std::size_t baselines = (m_p.reference_cpp ? 1 : 0) + m_p.baselines.size() + n_torch;
  auto consider = [&](const planned_case& c, bool timed) {
    const call_spec s = m_cx.to_call(c);
    // The controller reads the arenas in place (views, no copies): the reference's arena, the
    // candidate's (with a repeat), and each baseline's for one call.
    const std::uint64_t ref = layout_bytes(reference_layout(s, m_cx.tf32_envelope));
    const std::uint64_t cand = layout_bytes(candidate_layout(s, 2));
    const std::uint64_t timed_one = layout_bytes(candidate_layout(s, 1));
    const std::uint64_t need = ref + cand + (timed && m_o.timing ? baselines * timed_one : 0);
    // The candidate's timing worker holds one call's buffers, as a baseline's.
    if (timed && m_o.timing && fresh_timing_worker) worst_beside = std::max(worst_beside, need + timed_one);
    if (need > worst) {
      worst = need;
      worst_case = c.id + " (" + c.shape_string() + ")";
    }
  };
  for (const auto& c : m_plan.public_cases) consider(c, false);
  for (const auto& c : m_plan.hidden_cases) consider(c, false);
  for (const auto& c : m_plan.bench_cases) consider(c, true);
  if (worst > avail * 9 / 10)
    throw usage_error(m_p.name + ": case " + worst_case + " needs about " + gib(worst) +
                      " of host memory (the reference's inputs, same-dtype, perturbed and float64 outputs, and each "
                      "party's buffers), more than the " +
                      gib(avail) + " this machine has available");
  hp.needed = worst;
  hp.needed_beside = std::max(worst, worst_beside);
  hp.beside = worst_beside <= avail * 9 / 10;
}

// `party`: a Python party's description (kjudge-worker-py); null for a shared object. `timing`:
// the candidate's timing worker, sized as a timed party's (one call), its arena pinned as the
// candidate's for the rechecks' transfers of kept calls.
worker_options evaluation::worker_options_for(const std::filesystem::path& lib, worker_role role,
                                              const std::string& label, const json& party, bool timing) const {
  worker_options wo;
  wo.backend = device_name(m_c.device);
  wo.library = lib;
  wo.role = role;
  const bool correctness_candidate = role == worker_role::candidate && !timing;
  wo.arena_bytes = role == worker_role::reference ? m_arena.ref : correctness_candidate ? m_arena.cand : m_arena.timed;
  wo.pin_bytes = role == worker_role::reference   ? m_arena.ref_pin
                 : correctness_candidate          ? m_arena.cand
                 : role == worker_role::candidate ? (m_c.switches.pin_timing_arena ? m_arena.timed : 0)
                                                  : 0;
  wo.memory_limit_bytes = m_c.device == device_kind::cuda ? 0 : m_o.memory_limit_bytes;
  wo.sandbox = m_o.sandbox;
  wo.scratch_dir = m_scratch / label;
  if (role == worker_role::candidate) wo.scratch_quota_bytes = m_o.scratch_quota_bytes;
  if (!party.is_null()) configure_python_worker(wo, party, m_scratch / (label + "-party"));
  return wo;
}

or_verdict<worker_process*> evaluation::adopt_worker(std::variant<worker_process, worker_failure>&& r, worker_role role,
                                                     const std::string& label) {
  if (std::holds_alternative<worker_failure>(r)) {
    const auto& f = std::get<worker_failure>(r);
    // The reference's or a baseline's failure is the problem's or the machine's, never the
    // candidate's: nothing is judged (exit 2), and a missing torch says how to do without.
    if (role != worker_role::candidate)
      throw usage_error("the " + label + " worker failed to start: " + f.message +
                        (label.find("torch") != std::string::npos
                             ? "; or pass --torch none to judge without the PyTorch baselines"
                             : "") +
                        "\n" + f.log_tail);
    return verdict_of_failure(f, "loading the candidate");
  }
  m_workers.push_back(std::make_unique<worker_process>(std::get<worker_process>(std::move(r))));
  return m_workers.back().get();
}

or_verdict<worker_process*> evaluation::start_worker(const std::filesystem::path& lib, worker_role role,
                                                     const std::string& label, const json& party) {
  return adopt_worker(worker_process::start(worker_options_for(lib, role, label, party)), role, label);
}

// A launched party's worker once it is ready (the failure to start says which party).
or_verdict<worker_process*> evaluation::await_launched(launched_party& lp) {
  return adopt_worker(await_baseline(std::move(lp.started), lp.options, lp.options.scratch_dir), worker_role::baseline,
                      lp.label);
}

// A baseline's worker start, awaited. One that started from a stored compile cache and failed is
// started again from nothing, once, and the entry is dropped: a stored cache may cost a compile,
// never a verdict (python.md). `first` names the party's first worker (its cache's key).
std::variant<worker_process, worker_failure> evaluation::await_baseline(
    std::variant<worker_process, worker_failure>&& started, const worker_options& wo,
    const std::filesystem::path& first) {
  auto r = awaited(std::move(started));
  if (!std::holds_alternative<worker_failure>(r) ||
      !discard_seeded_cache(first, wo.scratch_dir, std::get<worker_failure>(r).message))
    return r;
  return awaited(worker_process::launch(wo));
}

// Drops the stored compile cache that the worker in `scratch` (of the party whose first worker's
// scratch is `first`) was seeded from; false when that worker was not seeded.
bool evaluation::discard_seeded_cache(const std::filesystem::path& first, const std::filesystem::path& scratch,
                                      const std::string& why) {
  const auto cache = m_compile_caches.find(first);
  const auto seeded = m_compile_seeded.find(first);
  if (cache == m_compile_caches.end() || seeded == m_compile_seeded.end() || seeded->second.empty() ||
      seeded->second.back() == 0)
    return false;
  cache->second.discard(scratch);
  seeded->second.back() = 0;
  m_compile_discarded[first].push_back(untrusted_text(why, 500));
  return true;
}

// The candidate's timing worker (judge_switches::fresh_timing_worker).
std::variant<worker_process, worker_failure> evaluation::launch_timing_worker() const {
  return worker_process::launch(
      worker_options_for(m_cand_build.library, worker_role::candidate, "candidate-timing", m_cand_party, true));
}

// The timed baselines that load while the checks run: the reference as a baseline, the torch
// parties.
void evaluation::launch_baselines() {
  const std::string device = device_name(m_c.device);
  if (m_o.timing && !m_c.pyp.format.empty()) {
    m_torch_kinds = m_o.torch_baselines.empty() ? default_torch_baselines(device) : m_o.torch_baselines;
    if (m_torch_kinds.size() == 1 && m_torch_kinds[0] == "none") m_torch_kinds.clear();
    if (!m_c.py_setup.unavailable.empty()) m_torch_kinds.clear();  // reported as skipped at timing
  }
  if (m_o.timing && !m_c.python_reference) {
    const worker_options wo =
        worker_options_for(m_ref_build.library, worker_role::baseline, "baseline-reference", json());
    m_launched.push_back({"reference", "baseline-reference", wo, worker_process::launch(wo)});
  }
  const python_problem& pyp = m_c.pyp;
  for (const auto& kind : m_torch_kinds) {
    std::string label = kind;
    std::replace(label.begin(), label.end(), ':', '-');
    label = "baseline-" + label;
    const json party = python_party(m_p, pyp, "baseline", pyp.file, python_party_kind(pyp, "baseline"), pyp.entry,
                                    torch_compile_mode(kind), m_o.tf32, device, m_c.variant, m_c.py_setup);
    const worker_options wo = worker_options_for(pyp.file, worker_role::baseline, label, party);
    if (m_o.torch_compile_cache && party["compile"].is_string()) {
      m_compile_caches.emplace(wo.scratch_dir, torch_compile_cache(party, sha256_hex(read_file(pyp.file))));
      seed_compile_cache(wo, wo);
    }
    m_launched.push_back({kind, label, wo, worker_process::launch(wo)});
  }
}

// A torch baseline's worker `wo` (a later set's, or the first itself) starts from its party's
// stored compile caches, where there are any.
void evaluation::seed_compile_cache(const worker_options& first, const worker_options& wo) {
  const auto it = m_compile_caches.find(first.scratch_dir);
  if (it == m_compile_caches.end()) return;
  m_compile_seeded[first.scratch_dir].push_back(it->second.seed(wo.scratch_dir));
}

// After the first warm-up of torch baseline `q`: its caches are stored for the next workers (when
// no entry exists), and the warm-up's report says what the workers started with.
void evaluation::store_compile_cache(std::size_t q, json& warm_up) {
  const std::filesystem::path& scratch = m_parties[q].worker->options().scratch_dir;
  const auto it = m_compile_caches.find(scratch);
  if (it == m_compile_caches.end()) return;
  warm_up["compile_cache"] = json{
      {"key", it->second.key()}, {"seeded_files", m_compile_seeded[scratch]}, {"stored", it->second.publish(scratch)}};
  if (const auto d = m_compile_discarded.find(scratch); d != m_compile_discarded.end())
    warm_up["compile_cache"]["discarded"] = d->second;
}

// The reference always runs in its own worker (the oracle's data source).
std::variant<worker_process, worker_failure> evaluation::launch_reference() const {
  worker_options wo;
  wo.backend = m_python_device_reference || m_device_reference ? "cuda" : "cpu";
  wo.library = m_ref_build.library;
  wo.role = worker_role::reference;
  wo.arena_bytes = m_arena.ref;
  wo.pin_bytes = m_arena.ref_pin;
  wo.memory_limit_bytes = 0;
  wo.sandbox = m_o.sandbox;
  wo.scratch_dir = m_scratch / "reference";
  if (m_c.python_reference)
    // "tf32": whether the problem permits TF32 in this run. The reference's own runs stay full f32
    // (kjudge_host's _torch_settings); with it, the envelope's last TF32 run switches torch's TF32
    // on (native_tf32, src/worker/worker.cpp).
    configure_python_worker(
        wo,
        python_party(m_p, m_c.pyp, "reference", m_c.pyp.file, python_party_kind(m_c.pyp, "reference"), m_c.pyp.entry,
                     std::nullopt, m_c.tf32, m_python_device_reference ? "cuda" : "cpu", m_c.variant, m_c.py_setup),
        m_scratch / "reference-party");
  return worker_process::launch(wo);
}

// Every party's worker is launched here, at once, and each is awaited only where it is first
// needed: a Python worker imports torch and initialises its device (2.5 s apiece on the CI VM), and
// one after another those start-ups were a KernelBench validation's largest fixed cost. The timed
// parties (the reference as a baseline, the torch parties) load while the correctness checks run;
// a candidate rejected before timing never waits for them (they are stopped with the evaluation).
phase_outcome evaluation::launch_workers() {
  progress("workers", 0, 1, "starting the workers of every party");
  launch_baselines();
  auto ref_started = launch_reference();
  const python_problem& pyp = m_c.pyp;
  if (m_c.python_candidate)
    m_cand_party = python_party(m_p, pyp, "candidate", m_o.candidate, python_party_kind(pyp, "candidate"),
                                // A/A: the problem's own Python file judged as a candidate runs its entry.
                                python_candidate_is_reference(m_o.candidate, pyp) ? pyp.entry : pyp.candidate_entry,
                                std::nullopt, m_o.tf32, device_name(m_c.device), m_c.variant, m_c.py_setup);
  auto cand_started = worker_process::launch(
      worker_options_for(m_cand_build.library, worker_role::candidate, "candidate", m_cand_party));
  // The candidate's timing worker loads while the correctness checks run where host memory holds
  // both; else it starts once the checks' worker has stopped.
  if (m_o.timing && m_c.switches.fresh_timing_worker && m_memory.beside)
    m_cand_timing_started.emplace(launch_timing_worker());
  ref_started = awaited(std::move(ref_started));
  if (std::holds_alternative<worker_failure>(ref_started))
    throw usage_error("the reference worker failed to start: " + std::get<worker_failure>(ref_started).message + "\n" +
                      std::get<worker_failure>(ref_started).log_tail);
  m_workers.push_back(std::make_unique<worker_process>(std::get<worker_process>(std::move(ref_started))));
  m_ref = m_workers.back().get();
  auto cand = adopt_worker(awaited(std::move(cand_started)), worker_role::candidate, "candidate");
  if (!cand.ok()) return cand.rejection();
  m_cand = cand.value();
  m_result["candidate"]["info"] = m_cand->ready().value("info", "");
  m_result["candidate"]["load"] = m_cand->load_report();
  m_result["env"] = environment_json(m_cand->ready().value("env", json::object()));
  return std::nullopt;
}

}  // namespace kjudge::detail
