#include "judge/python_parties.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "builder/builder.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"
#include "planner/planner.hpp"
#include "pool/worker_client.hpp"
#include "protocol/messages.hpp"
#include "store/store.hpp"

namespace kjudge {

namespace fs = std::filesystem;

namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

fs::path self_dir() {
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : self.parent_path();
}

std::string dtype_of(const tensor_spec& t, dtype variant) {
  return t.dtype == "T" ? std::string(dtype_name(variant)) : t.dtype;
}

}  // namespace

// Intra-op threads of torch in a Python party. On cpu one, unless KJUDGE_TORCH_THREADS or
// OMP_NUM_THREADS says otherwise: the cpu backend times one call at a time next to the judge's
// other workers, a C++ candidate runs on one thread unless it starts its own, and torch's pool on
// a shared two-core machine measured 12 ms for a 512x1024 softmax that takes 0.38 ms on one
// thread. On cuda torch's default (host threads barely matter there). 0: torch's default.
int torch_threads(const std::string& device) {
  if (auto t = env_or_empty("KJUDGE_TORCH_THREADS"); !t.empty()) return std::max(0, std::atoi(t.c_str()));
  if (auto t = env_or_empty("OMP_NUM_THREADS"); !t.empty()) return std::max(0, std::atoi(t.c_str()));
  return device == "cpu" ? 1 : 0;
}

python_setup find_python_setup() {
  python_setup s;
  std::error_code ec;
  if (auto w = env_or_empty("KJUDGE_WORKER_PY"); !w.empty())
    s.worker = w;
  else
    s.worker = self_dir() / "kjudge-worker-py";
  std::vector<fs::path> candidates;
  if (auto p = env_or_empty("KJUDGE_PYTHON"); !p.empty()) candidates.emplace_back(p);
  if (auto v = env_or_empty("KJUDGE_VENV"); !v.empty()) candidates.push_back(fs::path(v) / "bin" / "python3");
  if (auto h = env_or_empty("HOME"); !h.empty())
    candidates.push_back(fs::path(h) / ".cache" / "kjudge" / "venv" / "bin" / "python3");
#ifdef KJUDGE_PYTHON_DEFAULT
  candidates.emplace_back(KJUDGE_PYTHON_DEFAULT);
#endif
  for (const auto& c : candidates)
    if (fs::exists(c, ec)) {
      s.python = c;
      break;
    }
  if (!fs::exists(s.worker, ec))
    s.unavailable = "kjudge-worker-py was not built (no Python embedding files when kjudge was configured)";
  else if (s.python.empty())
    s.unavailable = "no python3 with torch: run scripts/install-torch.sh or set KJUDGE_PYTHON";
  return s;
}

bool is_python_candidate(const fs::path& candidate) {
  return candidate.extension() == ".py";
}

bool python_candidate_is_reference(const fs::path& candidate, const python_problem& pp) {
  std::error_code ec;
  return !pp.file.empty() && pp.format != "suite" && fs::equivalent(candidate, pp.file, ec);
}

python_problem python_problem_of(const problem_spec& p) {
  python_problem pp;
  const fs::path sidecar = p.dir / "kjudge-import.json";
  std::error_code ec;
  if (fs::exists(sidecar, ec)) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(read_file(sidecar));
      pp.format = j.at("format").get<std::string>();
      pp.file = p.dir / j.at("file").get<std::string>();
      pp.entry = j.value("entry", "Model");
      pp.candidate_entry = j.value("candidate_entry", "ModelNew");
      pp.init_inputs = j.value("init_inputs", nlohmann::json::array());
      pp.seed = j.value("seed", 42);
      pp.args = j.value("args", nlohmann::json());
      pp.source = j.value("source", nlohmann::json());
      pp.structure = j.value("structure", nlohmann::json());
      // Imported with --shape-scale: the file's constants as the problem was scaled, set in every
      // party's module (the model is built with them).
      pp.constants = j.value("constants", nlohmann::json::object());
      if (j.contains("generate_input")) {
        pp.test_args = j["generate_input"].value("tests", nlohmann::json::array());
        pp.benchmark_args = j["generate_input"].value("benchmarks", nlohmann::json::array());
      }
    } catch (const nlohmann::json::exception& e) {
      throw usage_error(sidecar.string() + ": malformed import description: " + e.what());
    }
    if (!fs::exists(pp.file, ec)) throw usage_error(sidecar.string() + ": " + pp.file.string() + " is missing");
    return pp;
  }
  if (p.reference_py) {
    pp.format = "suite";
    pp.file = *p.reference_py;
    pp.entry = "reference";
    pp.candidate_entry = "kernel|ModelNew";
  }
  return pp;
}

std::string python_party_kind(const python_problem& pp, const std::string& role) {
  if (pp.format == "suite") return role == "candidate" ? "auto" : "function";
  if (pp.format == "gpumode") return "gpumode";
  return "module";
}

const std::vector<std::string>& torch_baseline_kinds() {
  static const std::vector<std::string> k{"torch:eager", "torch:compile:default",
                                          "torch:compile:max-autotune-no-cudagraphs", "torch:compile:max-autotune"};
  return k;
}

std::vector<std::string> default_torch_baselines(const std::string& device) {
  // KJUDGE_TORCH_BASELINES="torch:eager,torch:compile:default" (or "none") chooses for scripts and
  // tests; --torch on the command line, where given, takes precedence (eval_options).
  if (auto e = env_or_empty("KJUDGE_TORCH_BASELINES"); !e.empty()) {
    std::vector<std::string> kinds;
    std::size_t start = 0;
    while (start <= e.size()) {
      const auto comma = e.find(',', start);
      const std::string k = e.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!k.empty()) {
        if (k != "none") (void)torch_compile_mode(k);  // validates
        kinds.push_back(k);
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return kinds;
  }
  if (device == "cuda") return torch_baseline_kinds();
  // On cpu, eager only by default: inductor's C++ compile costs 15-40 s per mode and shape on a
  // two-core machine, for every evaluation; --torch adds the compile modes (docs/python.md).
  return {"torch:eager"};
}

std::optional<std::string> torch_compile_mode(const std::string& kind) {
  if (kind == "torch:eager") return std::nullopt;
  const std::string pre = "torch:compile:";
  const auto& kinds = torch_baseline_kinds();
  if (kind.rfind(pre, 0) == 0 && std::find(kinds.begin(), kinds.end(), kind) != kinds.end())
    return kind.substr(pre.size());
  std::string known;
  for (const auto& k : kinds) known += (known.empty() ? "" : ", ") + k;
  throw usage_error("unknown torch baseline '" + kind + "': expected one of " + known);
}

nlohmann::json python_party(const problem_spec& p, const python_problem& pp, const std::string& role,
                            const fs::path& file, const std::string& kind, const std::string& entry,
                            const std::optional<std::string>& compile, bool tf32, const std::string& device,
                            dtype variant, const python_setup& setup) {
  nlohmann::json in = nlohmann::json::array(), out = nlohmann::json::array(), kwargs = nlohmann::json::array();
  for (const auto& t : p.inputs) in.push_back({{"name", t.name}, {"dtype", dtype_of(t, variant)}});
  for (const auto& t : p.outputs) out.push_back({{"name", t.name}, {"dtype", dtype_of(t, variant)}});
  nlohmann::json args = pp.args;
  if (args.is_null()) {
    // Suite form: tensors positionally in the signature's order, scalars by name.
    args = nlohmann::json::array();
    for (std::size_t i = 0; i < p.inputs.size(); ++i) args.push_back({{"tensor", i}});
    for (std::size_t j = 0; j < p.scalars.size(); ++j) kwargs.push_back({{"name", p.scalars[j].name}, {"scalar", j}});
  }
  return nlohmann::json{{"python", setup.python.string()},
                        {"kind", kind},
                        {"file", fs::absolute(file).string()},
                        {"entry", entry},
                        {"compile", compile ? nlohmann::json(*compile) : nlohmann::json()},
                        {"tf32", tf32},
                        {"device", device},
                        {"role", role},
                        {"inputs", in},
                        {"outputs", out},
                        {"args", args},
                        {"kwargs", kwargs},
                        {"init_inputs", pp.init_inputs},
                        {"seed", pp.seed},
                        {"module", role == "candidate" ? "kjudge_candidate" : "kjudge_reference"},
                        {"threads", torch_threads(device)},
                        {"structure", pp.structure},
                        {"problem_dir", p.dir.string()},
                        {"generator", pp.problem_check() ? nlohmann::json(fs::absolute(p.dir / "reference.py").string())
                                                         : nlohmann::json()},
                        {"constants", pp.constants}};
}

std::string generate_input_distribution(const python_problem& pp, const planned_case& c) {
  nlohmann::json args;
  auto same_shape = [&](const nlohmann::json& a) {
    for (const auto& [k, v] : c.symbols)
      if (!a.contains(k) || !a[k].is_number_integer() || a[k].get<std::int64_t>() != v) return false;
    return true;
  };
  if (c.kind == case_kind::public_case) {
    // "public-N": the N-th test, as the importer wrote them (a renamed case: the first test of its shape).
    const auto dash = c.id.rfind('-');
    std::size_t n = pp.test_args.size();
    if (c.id.rfind("public-", 0) == 0 && dash != std::string::npos)
      n = std::strtoul(c.id.c_str() + dash + 1, nullptr, 10);
    if (n < pp.test_args.size() && same_shape(pp.test_args[n])) args = pp.test_args[n];
    for (std::size_t i = 0; args.is_null() && i < pp.test_args.size(); ++i)
      if (same_shape(pp.test_args[i])) args = pp.test_args[i];
  } else if (c.kind == case_kind::bench_case) {
    for (const auto* list : {&pp.benchmark_args, &pp.test_args})
      for (std::size_t i = 0; args.is_null() && i < list->size(); ++i)
        if (same_shape((*list)[i])) args = (*list)[i];
    if (!args.is_null()) args.erase("seed");
  }
  if (args.is_null()) {
    // Hidden (or unmatched): the drawn shape over the other arguments of one of the tests.
    args = pp.test_args.at(static_cast<std::size_t>(c.seed % pp.test_args.size()));
    args.erase("seed");
    for (const auto& [k, v] : c.symbols) args[k] = v;
  }
  return "generate_input " + args.dump();
}

void configure_python_worker(worker_options& wo, const nlohmann::json& party, const fs::path& config_dir) {
  const python_setup s = find_python_setup();
  if (!s.unavailable.empty()) throw usage_error("Python parties cannot run: " + s.unavailable);
  fs::create_directories(config_dir);
  const fs::path f = config_dir / "party.json";
  std::ofstream o(f);
  o << party.dump(2) << "\n";
  if (!o) throw internal_error("cannot write " + f.string());
  wo.executable = s.worker;
  wo.library = f;
  if (wo.memory_limit_bytes > 0) wo.memory_limit_bytes += python_extra_address_space;
  // Compilers run by torch.compile write precompiled headers of torch's headers (~100s of MB).
  wo.file_size_limit_bytes = std::max<std::size_t>(wo.file_size_limit_bytes, 2ull << 30);
  // Importing torch, and a first torch.compile, take seconds on a busy machine.
  wo.start_timeout_seconds = std::max(wo.start_timeout_seconds, 300.0);
}

build_result python_build_result(const fs::path& file) {
  build_result b;
  b.ok = true;
  b.library = fs::absolute(file);
  b.source_sha256 = sha256_hex(read_file(file));
  b.compiler = "python (not compiled; run by kjudge-worker-py)";
  b.cached = true;
  return b;
}

nlohmann::json python_warmup(worker_process& w, const std::string& name, const std::vector<call_spec>& calls,
                             double timeout_s) {
  nlohmann::json per_call = nlohmann::json::array();
  double total = 0;
  for (const auto& c : calls) {
    nlohmann::json seconds = nlohmann::json::array();
    // The first call compiles for this shape; the second shows the steady cost (and that the
    // first did not leave a recompile for later).
    for (int k = 0; k < python_warm_calls_per_case; ++k) {
      // A baseline's failure throws usage_error (pool/failure_verdict.hpp); a verdict could only
      // come from a worker started in the candidate's role, which this never warms up.
      auto r = worker_client(w).warm_batch(c, 1, 0, timeout_s, "the warm-up of baseline " + name);
      if (!r.ok()) throw internal_error("python_warmup was given the candidate's worker (" + name + ")");
      const auto& j = r.value();
      if (j.value("rc", 0) != 0) {
        const auto st = python_stats(w, timeout_s);
        throw internal_error(
            "baseline " + name + " failed while warming up: " +
            (st.is_object() ? st.value("last_error", "status " + j["rc"].dump()) : "status " + j["rc"].dump()));
      }
      seconds.push_back(j.value("seconds_total", 0.0));
    }
    total += std::max(0.0, seconds[0].get<double>() - seconds[1].get<double>());
    per_call.push_back(seconds);
  }
  // compile_s: what the first calls cost beyond a steady call (torch.compile's compile and
  // autotuning; module loading and lazy initialisation for eager).
  nlohmann::json out{{"first_calls_s", per_call}, {"compile_s", total}};
  out["stats"] = python_stats(w, timeout_s);
  // The worker is needed for the timed rounds: a death while answering is ours to report here,
  // with its status and log, not later as "the worker is gone".
  if (out["stats"].is_object() && out["stats"].contains("worker_failure"))
    throw internal_error("baseline " + name + " died after warming up, answering py_stats: " +
                         out["stats"]["worker_failure"].get<std::string>() + "\n" +
                         out["stats"].value("log_tail", std::string()));
  return out;
}

nlohmann::json python_stats(worker_process& w, double timeout_s) {
  auto r = w.request(nlohmann::json{{"type", "py_stats"}}, timeout_s);
  if (std::holds_alternative<worker_failure>(r)) {
    const auto& f = std::get<worker_failure>(r);
    return nlohmann::json{{"worker_failure", f.message}, {"log_tail", f.log_tail}};
  }
  const auto& j = std::get<nlohmann::json>(r);
  // Diagnostics only, never a verdict: a reply of another type is reported as such.
  if (j.value("type", "") != "py_stats")
    return nlohmann::json{{"worker_failure", "expected 'py_stats', got '" + j.value("type", "?") + "'"}};
  // Written inside the party's process (which may be a candidate's): at most 16 KiB of printable
  // text, kept as JSON when it still parses, else as the text.
  const std::string text = untrusted_text(j.value("stats", nlohmann::json()).dump(), 16384);
  auto stats = nlohmann::json::parse(text, nullptr, false);
  return stats.is_discarded() ? nlohmann::json{{"unparsed", text}} : stats;
}

nlohmann::json python_inspect(const python_setup& ps, const nlohmann::json& request, double timeout) {
  using json = nlohmann::json;
  command_options co;
  co.timeout_seconds = timeout;
  const command_result r = run_command({ps.worker.string(), "--inspect", ps.python.string(), request.dump()}, co);
  if (r.timed_out)
    return json{{"ok", false}, {"error", "inspecting it took longer than " + std::to_string(int(timeout)) + " s"}};
  // The answer is the last line that parses as JSON (the file may print on its own).
  std::istringstream in(r.output);
  std::string line;
  json answer;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '{') continue;
    auto j = json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.contains("ok")) answer = j;
  }
  if (answer.is_null()) {
    std::string tail = r.output.size() > 1500 ? r.output.substr(r.output.size() - 1500) : r.output;
    return json{{"ok", false},
                {"error", "the inspector ended " +
                              (r.signal ? "by signal " + std::to_string(r.signal)
                                        : "with status " + std::to_string(r.exit_status)) +
                              " without an answer: " + tail}};
  }
  return answer;
}

shape_scale_plan plan_shape_scale(const problem_spec& p, const python_problem& pp, const planned_case& model,
                                  const std::vector<std::string>& distributions, double scale, std::uint64_t secret,
                                  int per_variant) {
  using json = nlohmann::json;
  shape_scale_plan out;
  out.report = json{{"scale", scale}, {"variants", json::array()}, {"dropped", json::array()}};
  if (pp.format != "kernelbench") {
    out.report["note"] = "--shape-scale applies to KernelBench imports only; no shape variants";
    return out;
  }
  const python_setup ps = find_python_setup();
  const json answer = python_inspect(ps,
                                     json{{"kind", "kernelbench_variants"},
                                          {"file", fs::absolute(pp.file).string()},
                                          {"seed", pp.seed},
                                          {"scale", scale}},
                                     600);
  if (!answer.value("ok", false))
    throw internal_error("--shape-scale: the problem's file fails with its own constants: " +
                         answer.value("error", "?"));
  const json& res = answer["result"];
  out.report["constants"] = res["constants"];
  out.report["dropped"] = res["dropped"];
  std::size_t v_index = 0;
  for (const auto& v : res["variants"]) {
    shape_variant sv;
    sv.label = v["label"];
    sv.pyp = pp;
    sv.pyp.init_inputs = v["init_inputs"];
    sv.pyp.constants = v["constants"];
    for (int j = 0; j < per_variant; ++j) {
      planned_case c = model;
      c.kind = case_kind::hidden_case;
      c.id = "hidden-shape-" + sv.label + "-" + std::to_string(j);
      c.symbols.clear();
      c.symbol_order.clear();
      for (const auto& [k, val] : v["constants"].items()) c.symbols[k] = val.get<std::int64_t>();
      // The first case with the public cases' distribution, the next ones the hidden ones in turn.
      c.distribution = j == 0 || distributions.empty()
                           ? model.distribution
                           : distributions[(v_index + static_cast<std::size_t>(j)) % distributions.size()];
      c.seed = mix_seed(secret, 0x7368617065ULL + v_index * 1000 + static_cast<std::uint64_t>(j));
      for (std::size_t i = 0; i < c.inputs.size() && i < v["inputs"].size(); ++i) {
        const auto& vi = v["inputs"][i];
        c.inputs[i].desc.shape = vi["shape"].get<std::vector<std::int64_t>>();
        // An integer input's values and a matrix's structure as the variant's own get_inputs()
        // drew them (labels over fewer classes when the class count is scaled down).
        if (c.inputs[i].range && vi.contains("min") && vi.contains("max"))
          c.inputs[i].range = int_range{vi["min"].get<std::int64_t>(), vi["max"].get<std::int64_t>()};
        if (c.inputs[i].structure != matrix_structure::none &&
            parse_structure(vi.value("structure", std::string())) != c.inputs[i].structure)
          c.inputs[i].structure = matrix_structure::none;
      }
      for (std::size_t i = 0; i < c.outputs.size() && i < v["outputs"].size(); ++i)
        c.outputs[i].shape = v["outputs"][i]["shape"].get<std::vector<std::int64_t>>();
      for (std::size_t i = 0; i < c.scalars.size() && i < v["scalars"].size(); ++i)
        c.scalars[i] = v["scalars"][i].value("value", c.scalars[i]);
      sv.cases.push_back(std::move(c));
    }
    out.report["variants"].push_back(json{{"label", sv.label},
                                          {"constants", v["constants"]},
                                          {"init_inputs", v["init_inputs"]},
                                          {"inputs", v["inputs"]},
                                          {"cases", per_variant}});
    out.variants.push_back(std::move(sv));
    ++v_index;
  }
  (void)p;
  return out;
}

}  // namespace kjudge
