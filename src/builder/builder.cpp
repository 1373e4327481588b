#include "builder/builder.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/subprocess.hpp"

namespace kjudge {

namespace {

std::filesystem::path include_dir() { return std::filesystem::path(KJUDGE_SOURCE_DIR) / "include"; }

std::string compiler_version(const std::string& compiler) {
  static std::mutex m;  // builds run concurrently (evaluate compiles its parties at once)
  static std::map<std::string, std::string> memo;
  std::lock_guard<std::mutex> lock(m);
  if (auto it = memo.find(compiler); it != memo.end()) return it->second;
  const auto r = run_command({compiler, "--version"}, {.timeout_seconds = 30});
  std::string v = r.output;
  if (compiler.find("nvcc") != std::string::npos) {
    const auto p = v.find("Build ");
    v = p == std::string::npos ? v : v.substr(p);
  }
  v = v.substr(0, v.find('\n'));
  return memo[compiler] = v;
}

// Every file a source pulls in with #include "..." (found next to the including file, or in the
// judge's include directory: kjudge/reference_util.h, kjudge/cuda_util.cuh, a problem's own
// colmajor.cuh), recursively, as path and content: part of the cache key, so that editing a
// header rebuilds what includes it. <...> includes are the system's and the compiler's version
// stands for them.
void add_included_files(const std::filesystem::path& file, const std::string& text, std::set<std::filesystem::path>& seen,
                        std::string& out) {
  static const std::regex include_re(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (!std::regex_search(line, m, include_re)) continue;
    std::error_code ec;
    for (const auto& dir : {file.parent_path(), include_dir()}) {
      const auto path = std::filesystem::weakly_canonical(dir / m[1].str(), ec);
      if (ec || !std::filesystem::is_regular_file(path, ec)) continue;
      if (seen.insert(path).second) {
        const std::string content = read_file(path);
        out += "\n--include " + m[1].str() + "\n" + content;
        add_included_files(path, content, seen, out);
      }
      break;
    }
  }
}

std::string included_files_material(const std::filesystem::path& source, const std::string& text) {
  std::set<std::filesystem::path> seen;
  std::string out;
  add_included_files(std::filesystem::absolute(source), text, seen, out);
  return out;
}

std::string nvcc_path() {
  if (const char* n = std::getenv("KJUDGE_NVCC")) return n;
  if (std::filesystem::exists("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return "nvcc";
}

}  // namespace

std::filesystem::path cache_root() {
  if (const char* c = std::getenv("KJUDGE_CACHE")) return c;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::filesystem::path(x) / "kjudge";
  if (const char* h = std::getenv("HOME"); h && *h) return std::filesystem::path(h) / ".cache" / "kjudge";
  return std::filesystem::temp_directory_path() / "kjudge-cache";
}

nlohmann::json parse_ptxas_resources(const std::string& diag) {
  nlohmann::json out = nlohmann::json::array();
  static const std::regex fn_re(R"(Compiling entry function '([^']+)')");
  static const std::regex props_re(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used_re(R"(Used (\d+) registers(?:.*?(\d+) bytes smem)?)");
  std::string current;
  nlohmann::json cur;
  std::istringstream in(diag);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, fn_re)) {
      if (!current.empty()) out.push_back(cur);
      current = m[1];
      cur = nlohmann::json{{"kernel", current}};
    } else if (!current.empty() && std::regex_search(line, m, props_re)) {
      cur["stack_bytes"] = std::stoi(m[1]);
      cur["spill_store_bytes"] = std::stoi(m[2]);
      cur["spill_load_bytes"] = std::stoi(m[3]);
    } else if (!current.empty() && std::regex_search(line, m, used_re)) {
      cur["registers"] = std::stoi(m[1]);
      if (m[2].matched) cur["shared_bytes"] = std::stoi(m[2]);
    }
  }
  if (!current.empty()) out.push_back(cur);
  return out;
}

build_result build_candidate(const build_request& r) {
  build_result b;
  const std::string src = read_file(r.source);
  const std::string ext = r.source.extension().string();
  const bool cuda = r.device == "cuda";
  if (!cuda && ext != ".cpp" && ext != ".cc" && ext != ".cxx")
    throw usage_error(r.source.string() + ": a cpu candidate must be a C++ source (.cpp), got '" + ext + "'");
  if (cuda && ext != ".cu")
    throw usage_error(r.source.string() + ": a cuda candidate must be a CUDA source (.cu), got '" + ext + "'");
  b.source_sha256 = sha256_hex(src);

  std::vector<std::string> flags;
  std::string compiler;
  if (!cuda) {
    compiler = std::getenv("CXX") ? std::getenv("CXX") : "g++";
    flags = {"-std=c++20", "-O3", "-march=native", "-fPIC", "-shared", "-fopenmp", "-w",
             "-I" + include_dir().string()};
  } else {
    compiler = nvcc_path();
    // sm_90a machine code for Hopper plus PTX so that other GPUs can JIT it.
    flags = {"-std=c++20", "-O3", "-shared", "-Xcompiler", "-fPIC", "-Xptxas", "-v",
             "-gencode=arch=compute_90a,code=sm_90a", "-gencode=arch=compute_90,code=compute_90",
             "-lcublas", "-lcublasLt", "-lcusolver", "-I" + include_dir().string()};
  }
  for (const auto& f : r.extra_flags) flags.push_back(f);
  b.compiler = compiler_version(compiler);
  std::string key_material = src + "\n--\n" + read_file(include_dir() / "kjudge" / "candidate.h") + "\n--\n" +
                             included_files_material(r.source, src) + "\n--\n" + b.compiler;
  for (const auto& f : flags) key_material += "\n" + f;
  const std::string key = sha256_hex(key_material);
  const auto dir = cache_root() / "build" / key.substr(0, 2) / key;
  const auto lib = dir / "candidate.so";
  const auto diag_file = dir / "diagnostics.txt";
  b.library = lib;
  b.command.push_back(compiler);
  for (const auto& f : flags) b.command.push_back(f);
  b.command.push_back("-o");
  b.command.push_back(lib.string());
  b.command.push_back(std::filesystem::absolute(r.source).string());
  std::error_code ec;
  if (std::filesystem::exists(lib, ec)) {
    b.ok = true;
    b.cached = true;
    std::ifstream d(diag_file);
    b.diagnostics.assign(std::istreambuf_iterator<char>(d), std::istreambuf_iterator<char>());
    if (cuda) b.resources = parse_ptxas_resources(b.diagnostics);
    return b;
  }
  std::filesystem::create_directories(dir);
  // Compile to a temporary name and rename, so a concurrent or interrupted build never leaves a
  // half-written library in the cache.
  // Unique per process and per build: the judge compiles its parties concurrently, and an A/A
  // run compiles the same source (the same cache key) twice at once.
  static std::atomic<unsigned> build_counter{0};
  const auto tmp = dir / ("candidate.so.tmp" + std::to_string(::getpid()) + "-" + std::to_string(build_counter++));
  std::vector<std::string> cmd = b.command;
  cmd[cmd.size() - 2] = tmp.string();
  const auto res = run_command(cmd, {.timeout_seconds = r.timeout_seconds});
  b.seconds = res.seconds;
  b.diagnostics = res.output;
  b.timed_out = res.timed_out;
  if (res.timed_out) {
    b.diagnostics += "\ncompilation exceeded the limit of " + std::to_string(static_cast<int>(r.timeout_seconds)) + " s";
    std::filesystem::remove(tmp, ec);
    return b;
  }
  if (res.exit_status != 0) {
    std::filesystem::remove(tmp, ec);
    return b;
  }
  std::ofstream(diag_file) << b.diagnostics;
  std::filesystem::rename(tmp, lib);
  b.ok = true;
  if (cuda) b.resources = parse_ptxas_resources(b.diagnostics);
  return b;
}

}  // namespace kjudge
