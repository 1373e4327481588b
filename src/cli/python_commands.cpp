#include "cli/python_commands.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "core/subprocess.hpp"
#include "core/utc.hpp"
#include "judge/python_parties.hpp"
#include "problem/integrity.hpp"

namespace kjudge::cli {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct import_flags {
  std::string path;
  std::string out;
  std::string prefix;
  int seed = 42;
  double shape_scale = 0;  // kjudge import kernelbench --shape-scale F (0: none)
  double timeout = 300;
  int jobs = 1;  // files inspected at once (kernelbench)
};

CLI::App* g_import = nullptr;
CLI::App* g_kernelbench = nullptr;
CLI::App* g_gpumode = nullptr;
CLI::App* g_seal = nullptr;
import_flags g_flags;

std::string toml_string(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    if (c == '\n') {
      r += "\\n";
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20) continue;
    r += c;
  }
  return r + "\"";
}

std::string shape_toml(const json& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i].get<long long>());
  return s + "]";
}

json inspect(const python_setup& ps, const json& request, double timeout) {
  return python_inspect(ps, request, timeout);
}

// What one inspection of a file may take: 80% of the memory available now (MemAvailable), shared
// by the inspections running at once; 0 where it cannot be read (no check).
std::uint64_t inspection_memory_limit(std::size_t jobs) {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024 * 8 / 10 / std::max<std::size_t>(1, jobs);
  return 0;
}

// A --prefix as a relative name: no empty components ("kb/", "kb//x", "/kb"), no "." or "..".
std::string normal_prefix(const std::string& prefix) {
  std::string out;
  std::size_t start = 0;
  while (start <= prefix.size()) {
    const auto slash = prefix.find('/', start);
    const std::string part = prefix.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part == "..") throw usage_error("--prefix " + prefix + ": '..' would leave the imported problems' directory");
    if (!part.empty() && part != ".") out += (out.empty() ? "" : "/") + part;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (out.empty()) throw usage_error("--prefix " + prefix + ": expected a name such as kb/level1");
  return out;
}

std::string name_part(std::string s) {
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  return s;
}

// Writes the problem directory of one inspected KernelBench file; returns its path.
// ", range = [min, max]" for an inspected integer or bool input (the inspection records min and
// max for those only), ", structure = ..." for a triangular or symmetric matrix, ", values = [...]"
// for a floating input that held only a few values: every draw keeps
// the input in the domain the problem's own generator showed (docs/problem-spec.md).
std::string input_domain_toml(const json& in) {
  std::string s;
  if (in.contains("min") && in.contains("max"))
    s += ", range = [" + std::to_string(in["min"].get<long long>()) + ", " +
         std::to_string(in["max"].get<long long>()) + "]";
  if (in.contains("structure") && in["structure"].is_string()) s += ", structure = " + toml_string(in["structure"]);
  if (in.contains("values") && in["values"].is_array() && !in["values"].empty()) {
    // A floating input that held only these values (+-1 targets, 0/1 masks), written as the
    // scalars' values are (JSON's round-trip form of a double is a TOML float).
    std::string vs;
    for (const auto& v : in["values"]) vs += (vs.empty() ? "" : ", ") + v.dump();
    s += ", values = [" + vs + "]";
  }
  return s;
}

// A tensor with a zero dimension (batch_size = 0, say) makes a problem no case of which can run:
// refused at import with the tensor named, not written for `eval` to refuse later.
void require_nonempty_tensors(const fs::path& file, const json& res) {
  for (const char* role : {"inputs", "outputs"})
    for (const auto& t : res[role])
      for (const auto& d : t["shape"])
        if (d.get<long long>() < 1)
          throw usage_error(file.string() + ": " + std::string(role).substr(0, std::string(role).size() - 1) + " " +
                            t.value("name", std::string("?")) + " has shape " + t["shape"].dump() +
                            ": a dimension of 0 (a batch size of 0?) leaves nothing to judge");
}

fs::path write_kernelbench_problem(const fs::path& file, const std::string& rel_name, const json& res,
                                   const fs::path& out_root, int seed) {
  require_nonempty_tensors(file, res);
  fs::path dir = out_root / rel_name;
  fs::create_directories(dir);
  unseal_problem_dir(dir);  // a re-import replaces the read-only files of the last one
  fs::copy_file(file, dir / "model.py", fs::copy_options::overwrite_existing);
  std::string variant = "f32";
  for (const auto& t : res["inputs"])
    if (t["dtype"] == "f32" || t["dtype"] == "f16" || t["dtype"] == "bf16" || t["dtype"] == "f64") {
      variant = t["dtype"];
      break;
    }
  // Minimum traffic: every input read once, every output written once.
  long long elems_t = 0, bytes_fixed = 0, max_elems = 1;
  auto account = [&](const json& t) {
    long long n = 1;
    for (const auto& d : t["shape"]) n *= d.get<long long>();
    max_elems = std::max(max_elems, n);
    if (t["dtype"] == variant)
      elems_t += n;
    else {
      static const std::map<std::string, int> sz{{"f32", 4}, {"f64", 8}, {"f16", 2}, {"bf16", 2},
                                                 {"i32", 4}, {"i64", 8}, {"u8", 1},  {"bool", 1}};
      bytes_fixed += n * sz.at(t["dtype"].get<std::string>());
    }
  };
  for (const auto& t : res["inputs"]) account(t);
  for (const auto& t : res["outputs"]) account(t);
  std::string dist = "normal";
  for (const auto& t : res["inputs"])
    if (t["dtype"] == variant && t["distribution"].is_string()) {
      dist = t["distribution"];
      break;
    }
  const std::string pname = name_part(rel_name);  // "kb.level1.19_ReLU" from "kb/level1/19_ReLU"
  std::string flat = rel_name;
  std::replace(flat.begin(), flat.end(), '/', '.');
  std::ostringstream t;
  t << "# Imported by `kjudge import kernelbench` from " << fs::absolute(file).string() << " on " << utc_now() << ".\n"
    << "# Re-import rather than edit. model.py is a copy of that file; kjudge-import.json says how it is run.\n"
    << "name = " << toml_string(name_part(flat)) << "\n"
    << "description = "
    << toml_string("KernelBench " + rel_name.substr(rel_name.find('/') + 1) +
                   (res.value("doc", "").empty()
                        ? ""
                        : ": " + res["doc"].get<std::string>().substr(0, res["doc"].get<std::string>().find('\n'))))
    << "\n"
    << "dtypes = [" << toml_string(variant) << "]\n";
  if (res.value("uses_matmul", false))
    t << "# Matrix products or convolutions: f32 candidates may use TF32, as torch does with TF32 on.\n"
      << "tf32_allowed = true\n";
  t << "\n[signature]\ninputs = [\n";
  for (const auto& in : res["inputs"]) {
    t << "  { name = " << toml_string(in["name"]) << ", shape = " << shape_toml(in["shape"]);
    // A range needs a concrete dtype (the variant "T" may be a float).
    if (in["dtype"] != variant || in.contains("min")) t << ", dtype = " << toml_string(in["dtype"]);
    // Integer inputs (labels, indices, masks) over the values the file's own get_inputs() drew
    // (randint(0, C) gives [0, C-1] at KernelBench's sizes; a bool mask [0, 1]).
    t << input_domain_toml(in) << " },\n";
  }
  t << "]\noutputs = [\n";
  for (const auto& o : res["outputs"]) {
    t << "  { name = " << toml_string(o["name"]) << ", shape = " << shape_toml(o["shape"]);
    if (o["dtype"] != variant) t << ", dtype = " << toml_string(o["dtype"]);
    t << " },\n";
  }
  t << "]\n";
  if (!res["scalars"].empty()) {
    t << "scalars = [";
    bool first = true;
    for (const auto& s : res["scalars"]) {
      t << (first ? "" : ", ") << "{ name = " << toml_string(s["name"]) << ", value = " << s["value"].dump() << " }";
      first = false;
    }
    t << "]\n";
  }
  t << "\n[cost]\nbytes = \"" << elems_t << " * elem" << (bytes_fixed ? " + " + std::to_string(bytes_fixed) : "")
    << "\"\n";
  t << "\n[references]\npy = \"model.py\"\n";
  t << "\n[[public]]\ndistribution = " << toml_string(dist) << "\n";
  for (const char* dev : {"cpu", "cuda"})
    t << "\n[[bench." << dev << "]]\ndistribution = " << toml_string(dist) << "\n";
  // Hidden cases: fresh seeds and distribution transforms (signed normal instead of uniform,
  // x1e3, x1e-3, offsets, heavy tails); a case whose reference is not finite is redrawn.
  for (const char* dev : {"cpu", "cuda"})
    t << "\n[hidden." << dev << "]\ncount = 7\nmax_elements = " << max_elems
      << "\ndistributions = [\"normal\", \"uniform\", \"large\", \"small\", \"offset\", \"heavy\", \"wide\"]\n";
  std::ofstream(dir / "problem.toml") << t.str();
  json sidecar{{"format", "kernelbench"},
               {"file", "model.py"},
               {"entry", "Model"},
               {"candidate_entry", "ModelNew"},
               {"seed", seed},
               {"init_inputs", res["init_inputs"]},
               {"args", res["args"]},
               {"source",
                {{"path", fs::absolute(file).string()},
                 {"sha256", sha256_hex(read_file(file))},
                 {"imported_at", utc_now()},
                 {"constants", res["constants"]},
                 {"parameters", res["parameters"]}}}};
  // --shape-scale at import: the scaled constants are the problem's (set in every party's module).
  if (res.contains("scaled_constants") && !res["scaled_constants"].empty()) {
    json consts = json::object();
    for (const auto& [k, v] : res["scaled_constants"].items()) consts[k] = v[1];
    sidecar["constants"] = consts;
    sidecar["source"]["scaled_constants"] = res["scaled_constants"];
  }
  std::ofstream(dir / "kjudge-import.json") << sidecar.dump(2) << "\n";
  seal_problem_dir(dir);
  (void)pname;
  return dir;
}

int cmd_import_kernelbench(const import_flags& f) {
  const python_setup ps = find_python_setup();
  if (!ps.unavailable.empty()) throw usage_error("kjudge import needs Python: " + ps.unavailable);
  const fs::path in(f.path);
  std::error_code ec;
  std::vector<fs::path> files;
  if (fs::is_directory(in, ec)) {
    for (const auto& e : fs::directory_iterator(in))
      if (e.path().extension() == ".py") files.push_back(e.path());
    std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
      // KernelBench numbers its files: 2_x before 10_x.
      const auto na = std::atoi(a.filename().c_str()), nb = std::atoi(b.filename().c_str());
      return na != nb ? na < nb : a < b;
    });
    if (files.empty()) throw usage_error(in.string() + ": no .py files");
  } else if (fs::is_regular_file(in, ec)) {
    files.push_back(in);
  } else {
    throw usage_error(in.string() + ": no such file or directory");
  }
  const fs::path out_root = f.out.empty() ? imported_problems_root() : fs::path(f.out);
  // The level's name from the directory's real path: "." or a trailing slash named problems
  // "kb//19_ReLU".
  const fs::path where = fs::weakly_canonical(fs::absolute(in), ec);
  std::string level = (fs::is_directory(in, ec) ? where : where.parent_path()).filename().string();
  if (level.empty()) level = "problems";
  const std::string prefix = f.prefix.empty() ? "kb/" + name_part(level) : normal_prefix(f.prefix);
  int ok = 0, failed = 0;
  // Inspections run --jobs at a time (each its own process); the problems are written in order.
  const std::size_t jobs = static_cast<std::size_t>(std::max(1, f.jobs));
  std::vector<std::future<json>> answers(files.size());
  auto launch = [&](std::size_t i) {
    answers[i] = std::async(std::launch::async, [&ps, &f, jobs, file = files[i]] {
      json req{{"kind", "kernelbench"},
               {"file", fs::absolute(file).string()},
               {"seed", f.seed},
               {"memory_limit", inspection_memory_limit(jobs)}};
      if (f.shape_scale > 0) req["shape_scale"] = f.shape_scale;
      return inspect(ps, req, f.timeout);
    });
  };
  for (std::size_t i = 0; i < std::min(jobs, files.size()); ++i) launch(i);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const fs::path& file = files[i];
    const std::string rel = prefix + "/" + name_part(file.stem().string());
    const json answer = answers[i].get();
    if (i + jobs < files.size()) launch(i + jobs);
    if (!answer.value("ok", false)) {
      ++failed;
      std::fprintf(stderr, "kjudge import: %s: %s\n", file.string().c_str(), answer.value("error", "?").c_str());
      continue;
    }
    fs::path dir;
    try {
      dir = write_kernelbench_problem(file, rel, answer["result"], out_root, f.seed);
    } catch (const usage_error& e) {
      ++failed;
      std::fprintf(stderr, "kjudge import: %s\n", e.what());
      continue;
    }
    ++ok;
    std::string shapes;
    for (const auto& t : answer["result"]["inputs"])
      shapes += (shapes.empty() ? "" : ", ") + t["name"].get<std::string>() + shape_toml(t["shape"]);
    std::printf("imported %-40s %s  (%s)\n", rel.c_str(), dir.string().c_str(), shapes.c_str());
  }
  std::printf("%zu file(s): %d imported, %d failed%s\n", files.size(), ok, failed,
              ok ? ("; judge with: kjudge eval " + prefix + "/<name> MODELNEW.py" +
                    (f.out.empty() ? "" : " (or the directory)"))
                       .c_str()
                 : "");
  return failed == 0 ? 0 : 2;
}

std::string symbols_toml(const json& args) {
  std::string s = "{ ";
  bool first = true;
  for (const auto& [k, v] : args.items()) {
    s += (first ? "" : ", ") + k + " = " + v.dump();
    first = false;
  }
  return s + " }";
}

std::string dims_toml(const json& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + (shape[i].is_string() ? toml_string(shape[i].get<std::string>()) : shape[i].dump());
  return s + "]";
}

int cmd_import_gpumode(const import_flags& f) {
  const python_setup ps = find_python_setup();
  if (!ps.unavailable.empty()) throw usage_error("kjudge import needs Python: " + ps.unavailable);
  const fs::path in = fs::absolute(f.path).lexically_normal();
  std::error_code ec;
  if (!fs::is_directory(in, ec))
    throw usage_error(f.path + ": expected a GPU MODE problem directory (task.yml, reference.py)");
  const json answer = inspect(ps, json{{"kind", "gpumode"}, {"dir", in.string()}}, f.timeout);
  if (!answer.value("ok", false)) {
    std::fprintf(stderr, "kjudge import: %s: %s\n", f.path.c_str(), answer.value("error", "?").c_str());
    return 2;
  }
  const json& res = answer["result"];
  std::string base = fs::weakly_canonical(fs::absolute(in), ec).filename().string();
  if (base.empty()) base = "problem";
  const std::string rel = (f.prefix.empty() ? std::string("gpumode") : normal_prefix(f.prefix)) + "/" + name_part(base);
  const fs::path dir = (f.out.empty() ? imported_problems_root() : fs::path(f.out)) / rel;
  fs::create_directories(dir);
  unseal_problem_dir(dir);  // a re-import replaces the read-only files of the last one
  // The problem's own files (reference.py imports task.py, often ../utils.py).
  for (const char* name : {"reference.py", "task.yml", "task.py", "utils.py"}) {
    fs::path src = in / name;
    if (!fs::exists(src, ec) && std::string(name) == "utils.py") src = in.parent_path() / name;
    if (fs::exists(src, ec)) fs::copy_file(src, dir / name, fs::copy_options::overwrite_existing);
  }
  std::string variant = "f32";
  for (const auto& t : res["inputs"])
    if (t["dtype"] == "f32" || t["dtype"] == "f16" || t["dtype"] == "bf16" || t["dtype"] == "f64") {
      variant = t["dtype"];
      break;
    }
  std::string flat = rel;
  std::replace(flat.begin(), flat.end(), '/', '.');
  std::ostringstream t;
  t << "# Imported by `kjudge import gpumode` from " << in.string() << " on " << utc_now() << ".\n"
    << "# Re-import rather than edit. Python candidates: inputs from generate_input (kjudge-import.json\n"
    << "# holds the tests' and benchmarks' arguments), correctness decided by check_implementation.\n"
    << "# C++ candidates: inputs drawn by kjudge as below, the elementwise oracle against ref_kernel.\n"
    << "name = " << toml_string(name_part(flat)) << "\n"
    << "description = "
    << toml_string("GPU MODE " + base +
                   (res.value("description", "").empty()
                        ? ""
                        : ": " + res["description"].get<std::string>().substr(
                                     0, res["description"].get<std::string>().find('\n'))))
    << "\n"
    << "dtypes = [" << toml_string(variant) << "]\n\n[signature]\n";
  t << "symbols = [";
  for (std::size_t i = 0; i < res["symbols"].size(); ++i) t << (i ? ", " : "") << toml_string(res["symbols"][i]);
  t << "]\ninputs = [\n";
  for (const auto& x : res["inputs"]) {
    t << "  { name = " << toml_string(x["name"]) << ", shape = " << dims_toml(x["shape"]);
    if (x["dtype"] != variant) t << ", dtype = " << toml_string(x["dtype"]);
    // Integer and bool inputs: drawn over the values generate_input drew in every case.
    t << input_domain_toml(x) << " },\n";
  }
  t << "]\noutputs = [\n";
  for (const auto& x : res["outputs"]) {
    t << "  { name = " << toml_string(x["name"]) << ", shape = " << dims_toml(x["shape"]);
    if (x["dtype"] != variant) t << ", dtype = " << toml_string(x["dtype"]);
    t << " },\n";
  }
  t << "]\n\n[references]\npy = \"reference.py\"\n";
  for (const auto& c : res["tests"])
    t << "\n[[public]]\nsymbols = " << symbols_toml(c) << "\ndistribution = \"normal\"\n";
  // Timed: the benchmarks on cuda; on cpu the largest test (GPU benchmark sizes take seconds there).
  const json& benches = res["benchmarks"].empty() ? res["tests"] : res["benchmarks"];
  for (const auto& c : benches)
    t << "\n[[bench.cuda]]\nsymbols = " << symbols_toml(c) << "\ndistribution = \"normal\"\n";
  t << "\n[[bench.cpu]]\nsymbols = " << symbols_toml(res["tests"].back()) << "\ndistribution = \"normal\"\n";
  // Hidden: fresh seeds and shapes within the tests' (cpu) or all cases' (cuda) ranges.
  for (const char* dev : {"cpu", "cuda"}) {
    std::map<std::string, std::pair<long long, long long>> range;
    auto add = [&](const json& cs) {
      for (const auto& c : cs)
        for (const auto& [k, v] : c.items()) {
          auto& r = range.try_emplace(k, v.get<long long>(), v.get<long long>()).first->second;
          r.first = std::min(r.first, v.get<long long>());
          r.second = std::max(r.second, v.get<long long>());
        }
    };
    add(res["tests"]);
    if (std::string(dev) == "cuda") add(res["benchmarks"]);
    t << "\n[hidden." << dev << "]\ncount = " << std::max<std::size_t>(4, res["tests"].size()) << "\nranges = { ";
    bool first = true;
    for (const auto& [k, r] : range) {
      t << (first ? "" : ", ") << k << " = [" << r.first << ", " << r.second << "]";
      first = false;
    }
    t << " }\nmax_elements = " << (std::string(dev) == "cuda" ? 1ll << 28 : 1ll << 22)
      << "\ndistributions = [\"normal\", \"uniform\", \"large\", \"small\", \"offset\", \"heavy\"]\n";
  }
  std::ofstream(dir / "problem.toml") << t.str();
  json sidecar{{"format", "gpumode"},
               {"file", "reference.py"},
               {"entry", "ref_kernel"},
               {"candidate_entry", "custom_kernel"},
               {"structure", res["structure"]},
               // The problem's own rule (docs/python.md): every argument of every test and benchmark.
               {"generate_input", {{"tests", res["test_args"]}, {"benchmarks", res["benchmark_args"]}}},
               {"source",
                {{"path", in.string()},
                 {"imported_at", utc_now()},
                 {"ignored_arguments", res["ignored_arguments"]},
                 {"checked_tests", res["checked_tests"]}}}};
  std::ofstream(dir / "kjudge-import.json") << sidecar.dump(2) << "\n";
  seal_problem_dir(dir);
  std::printf(
      "imported %s  %s  (symbols %s; %zu tests, %zu benchmarks; check_implementation accepted ref_kernel on %d "
      "tests)\n",
      rel.c_str(), dir.string().c_str(), res["symbols"].dump().c_str(), res["tests"].size(), res["benchmarks"].size(),
      res.value("checked_tests", 0));
  if (!res["ignored_arguments"].empty())
    std::printf(
        "note: test arguments %s do not set a shape: passed to generate_input for Python candidates, "
        "unused for C++ candidates (kjudge's own distributions)\n",
        res["ignored_arguments"].dump().c_str());
  return 0;
}

}  // namespace

fs::path import_kernelbench_file(const fs::path& file, const fs::path& out_root, const std::string& rel_name, int seed,
                                 double timeout_s) {
  const python_setup ps = find_python_setup();
  if (!ps.unavailable.empty()) throw usage_error("importing " + file.string() + " needs Python: " + ps.unavailable);
  const json answer = inspect(ps,
                              json{{"kind", "kernelbench"},
                                   {"file", fs::absolute(file).string()},
                                   {"seed", seed},
                                   {"memory_limit", inspection_memory_limit(1)}},
                              timeout_s);
  if (!answer.value("ok", false)) throw usage_error(file.string() + ": " + answer.value("error", "?"));
  return write_kernelbench_problem(file, rel_name, answer["result"], out_root, seed);
}

std::vector<std::string> parse_torch_baselines(const std::string& list) {
  std::vector<std::string> kinds;
  std::stringstream ss(list);
  std::string k;
  while (std::getline(ss, k, ',')) {
    if (k.empty()) continue;
    if (k != "none") (void)torch_compile_mode(k);  // validates the name
    kinds.push_back(k);
  }
  if (kinds.empty()) throw usage_error("--torch: expected a comma-separated list of torch baselines, or none");
  if (kinds.size() > 1 && std::find(kinds.begin(), kinds.end(), "none") != kinds.end())
    throw usage_error("--torch: 'none' cannot be combined with baselines");
  return kinds;
}

// kjudge import seal DIR: the files as they are now become the problem's recorded content
// (problem/integrity.hpp); the spec must still parse.
int cmd_import_seal(const import_flags& f) {
  const fs::path dir(f.path);
  std::error_code ec;
  if (!fs::is_regular_file(dir / "problem.toml", ec))
    throw usage_error(dir.string() + ": expected a problem directory holding problem.toml, found none");
  (void)parse_problem_file(dir / "problem.toml");
  unseal_problem_dir(dir);
  seal_problem_dir(dir);
  std::printf("sealed %s: its files are now the problem's recorded content (%s)\n", dir.string().c_str(),
              problem_manifest_file);
  return 0;
}

void add_python_commands(CLI::App& app) {
  g_import =
      app.add_subcommand("import", "turn problems of other benchmarks into kjudge problems (KernelBench, GPU MODE)");
  g_import->require_subcommand(1);
  g_kernelbench =
      g_import->add_subcommand("kernelbench", "import KernelBench problem files (Model, get_inputs, get_init_inputs)");
  g_kernelbench->add_option("PATH", g_flags.path, "a KernelBench problem file, or a directory of them (a level)")
      ->required();
  g_kernelbench->add_option("--out", g_flags.out,
                            "root for the generated problem directories (default: the store's data directory)");
  g_kernelbench->add_option("--prefix", g_flags.prefix,
                            "problem name prefix (default kb/<directory name>, e.g. kb/level1)");
  g_kernelbench->add_option("--seed", g_flags.seed,
                            "seed of the weights' initialisation (the same for reference and candidates)");
  g_kernelbench->add_option("--timeout", g_flags.timeout, "seconds allowed to inspect one file");
  g_kernelbench
      ->add_option("--shape-scale", g_flags.shape_scale,
                   "scale the file's input-sizing constants by F before running it (for files whose full "
                   "size does not fit this machine; the problem is then the scaled one)")
      ->check(CLI::PositiveNumber);
  g_kernelbench->add_option("-j,--jobs", g_flags.jobs, "files inspected at once (each in its own process)")
      ->check(CLI::Range(1, 64));
  g_gpumode = g_import->add_subcommand("gpumode", "import a GPU MODE problem directory (task.yml, reference.py)");
  g_gpumode->add_option("DIR", g_flags.path, "the problem directory")->required();
  g_gpumode->add_option("--out", g_flags.out,
                        "root for the generated problem directory (default: the store's data directory)");
  g_gpumode->add_option("--prefix", g_flags.prefix, "problem name prefix (default gpumode)");
  g_gpumode->add_option("--timeout", g_flags.timeout, "seconds allowed to inspect the problem");
  g_seal = g_import->add_subcommand(
      "seal",
      "record a problem directory's files as its content, after a deliberate edit (imported problems are "
      "verified against it at every use)");
  g_seal->add_option("DIR", g_flags.path, "the problem directory")->required();
}

bool run_python_command_if_selected(int& status) {
  if (g_import == nullptr || !g_import->parsed()) return false;
  if (g_kernelbench->parsed()) {
    status = cmd_import_kernelbench(g_flags);
    return true;
  }
  if (g_gpumode->parsed()) {
    status = cmd_import_gpumode(g_flags);
    return true;
  }
  if (g_seal->parsed()) {
    status = cmd_import_seal(g_flags);
    return true;
  }
  status = 2;
  return true;
}

}  // namespace kjudge::cli
