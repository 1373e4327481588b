#include "builder/builder.hpp"

#include <fcntl.h>
#include <sys/file.h>
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
#include "core/paths.hpp"
#include "core/subprocess.hpp"

namespace kjudge {

namespace {

std::filesystem::path include_dir() {
  return std::filesystem::path(KJUDGE_SOURCE_DIR) / "include";
}

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
void add_included_files(const std::filesystem::path& file, const std::string& text,
                        std::set<std::filesystem::path>& seen, std::string& out) {
  // A plain literal, not a raw one: lizard (the function-length check, issue 29) misreads a raw
  // string that holds quotes and runs this function on into the next ones.
  static const std::regex include_re("^\\s*#\\s*include\\s*\"([^\"]+)\"");
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

// The files a source includes with "..." (paths) and their text as cache-key material.
std::string included_files_material(const std::filesystem::path& source, const std::string& text,
                                    std::set<std::filesystem::path>& files) {
  std::string out;
  add_included_files(std::filesystem::absolute(source), text, files, out);
  return out;
}

// The program that runs the compiler in the build's sandbox: next to the running program, else in
// this build's bin/ (the unit tests run from tests/), or KJUDGE_CONFINE.
std::filesystem::path confine_executable() {
  if (const char* c = std::getenv("KJUDGE_CONFINE"); c != nullptr && *c != 0) return c;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && std::filesystem::exists(self.parent_path() / "kjudge-confine", ec))
    return self.parent_path() / "kjudge-confine";
  std::filesystem::path built = std::filesystem::path(KJUDGE_BINARY_DIR) / "bin" / "kjudge-confine";
  if (std::filesystem::exists(built, ec)) return built;
  throw internal_error("kjudge-confine (the build's sandbox) was not found next to " + self.string() + " or in " +
                       built.parent_path().string() + "; set KJUDGE_CONFINE");
}

// The compiler runs confined (sandbox/confine.hpp through kjudge-confine): it may read the
// toolchain (/usr, /lib*, /bin, the compiler's own installation), the source, the files it
// includes with "..." and the judge's ABI headers, and write only its staging directory; no
// network, no other processes, a clean environment. An `.incbin` of the store or of another
// candidate's build then fails to assemble, and nothing of the controller's environment reaches
// the compiler (or a file it embeds).
std::vector<std::string> confined(const std::vector<std::string>& compile, const std::filesystem::path& compiler,
                                  const std::filesystem::path& source, const std::set<std::filesystem::path>& includes,
                                  const std::filesystem::path& stage, double timeout_seconds) {
  std::vector<std::string> c{confine_executable().string()};
  for (const char* d : {"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin"}) c.insert(c.end(), {"--read", d});
  // The compiler's installation where it is not under /usr (a toolchain in /opt, say).
  std::error_code ec;
  if (compiler.is_absolute()) {
    const auto real = std::filesystem::canonical(compiler, ec);
    if (!ec) c.insert(c.end(), {"--read", real.parent_path().parent_path().string()});
  }
  c.insert(c.end(), {"--read-file", "/etc/ld.so.cache", "--read", include_dir().string(), "--read-file",
                     std::filesystem::absolute(source).string()});
  for (const auto& f : includes) c.insert(c.end(), {"--read-file", f.string()});
  c.insert(c.end(), {"--write", stage.string(), "--write-file", "/dev/null", "--read-file", "/dev/urandom"});
  // Limits: the compile's own time limit, 1 GiB per file written, no address-space limit (nvcc's
  // front ends reserve large ranges).
  c.insert(c.end(), {"--cpu-seconds", std::to_string(static_cast<long long>(timeout_seconds) + 5), "--fsize-bytes",
                     std::to_string(1ull << 30), "--"});
  c.insert(c.end(), compile.begin(), compile.end());
  return c;
}

// The compiler's environment: nothing of the controller's but the search path and the dynamic
// loader's path (toolkits installed outside the default directories).
std::map<std::string, std::string> build_environment(const std::filesystem::path& stage) {
  std::map<std::string, std::string> env{{"PATH", "/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin"},
                                         {"HOME", stage.string()},
                                         {"TMPDIR", stage.string()},
                                         {"LANG", "C"},
                                         {"LC_ALL", "C"}};
  if (const char* p = std::getenv("PATH")) env["PATH"] = p;
  if (const char* l = std::getenv("LD_LIBRARY_PATH")) env["LD_LIBRARY_PATH"] = l;
  return env;
}

// A cache entry is the library, its compiler diagnostics and a manifest holding the library's
// SHA-256; all three read-only. Reuse verifies the bytes against the manifest.
constexpr const char* k_manifest = "manifest.json";

bool verified_entry(const std::filesystem::path& dir, const std::filesystem::path& lib, std::string& why) {
  std::error_code ec;
  if (!std::filesystem::exists(dir / k_manifest, ec)) {
    why = "it has no manifest (built by an older kjudge, or tampered with)";
    return false;
  }
  try {
    const auto m = nlohmann::json::parse(read_file(dir / k_manifest));
    const std::string recorded = m.value("library_sha256", "");
    const std::string actual = sha256_hex(read_file(lib));
    if (recorded != actual) {
      why = "its library's SHA-256 " + actual.substr(0, 16) + "... differs from the " + recorded.substr(0, 16) +
            "... recorded when it was built";
      return false;
    }
  } catch (const std::exception& e) {
    why = std::string("its manifest is unreadable (") + e.what() + ")";
    return false;
  }
  return true;
}

// An exclusive lock on a cache entry (flock on a file in it), released when destroyed.
class entry_lock {
 public:
  explicit entry_lock(const std::filesystem::path& file)
      : m_fd(::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (m_fd >= 0)
      while (::flock(m_fd, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  entry_lock(const entry_lock&) = delete;
  entry_lock& operator=(const entry_lock&) = delete;
  ~entry_lock() {
    if (m_fd >= 0) ::close(m_fd);
  }

 private:
  int m_fd;
};

void make_read_only(const std::filesystem::path& p) {
  std::error_code ec;
  std::filesystem::permissions(
      p, std::filesystem::perms::owner_read | std::filesystem::perms::group_read | std::filesystem::perms::others_read,
      ec);
}

void remove_entry(const std::filesystem::path& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    std::filesystem::permissions(e.path(), std::filesystem::perms::owner_write, std::filesystem::perm_options::add, ec);
  for (const char* name : {"candidate.so", "diagnostics.txt", k_manifest}) std::filesystem::remove(dir / name, ec);
}

std::string nvcc_path() {
  if (const char* n = std::getenv("KJUDGE_NVCC")) return n;
  if (std::filesystem::exists("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return "nvcc";
}

}  // namespace

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
    flags = {"-std=c++20", "-O3", "-march=native", "-fPIC", "-shared", "-fopenmp", "-w", "-I" + include_dir().string()};
  } else {
    compiler = nvcc_path();
    // sm_90a machine code for Hopper plus PTX so that other GPUs can JIT it.
    flags = {"-std=c++20",
             "-O3",
             "-shared",
             "-Xcompiler",
             "-fPIC",
             "-Xptxas",
             "-v",
             "-gencode=arch=compute_90a,code=sm_90a",
             "-gencode=arch=compute_90,code=compute_90",
             "-lcublas",
             "-lcublasLt",
             "-lcusolver",
             "-I" + include_dir().string()};
  }
  for (const auto& f : r.extra_flags) flags.push_back(f);
  b.compiler = compiler_version(compiler);
  std::set<std::filesystem::path> includes;
  std::string key_material = src + "\n--\n" + read_file(include_dir() / "kjudge" / "candidate.h") + "\n--\n" +
                             included_files_material(r.source, src, includes) + "\n--\n" + b.compiler;
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
  std::filesystem::create_directories(dir);
  // One build of a key at a time, across threads and processes (an A/A compiles the same source
  // twice at once): the second finds the first's entry and verifies it.
  const entry_lock lock(dir / "lock");
  if (std::filesystem::exists(lib, ec)) {
    std::string why;
    if (verified_entry(dir, lib, why)) {
      b.ok = true;
      b.cached = true;
      std::ifstream d(diag_file);
      b.diagnostics.assign(std::istreambuf_iterator<char>(d), std::istreambuf_iterator<char>());
      if (cuda) b.resources = parse_ptxas_resources(b.diagnostics);
      return b;
    }
    b.cache_note = "the cached build " + dir.string() + " was not used: " + why + "; rebuilt";
    remove_entry(dir);
  }
  // Compiled in a staging directory of its own and moved into place, so that a concurrent or
  // interrupted build never leaves a half-written library in the cache. Unique per process and
  // per build: the judge compiles its parties concurrently, and an A/A run compiles the same
  // source (the same cache key) twice at once.
  static std::atomic<unsigned> build_counter{0};
  const auto stage = dir / ("stage-" + std::to_string(::getpid()) + "-" + std::to_string(build_counter++));
  std::filesystem::create_directories(stage);
  const auto tmp = stage / "candidate.so";
  std::vector<std::string> cmd = b.command;
  cmd[cmd.size() - 2] = tmp.string();
  command_options co;
  co.timeout_seconds = r.timeout_seconds;
  co.clean_env = true;
  co.extra_env = build_environment(stage);
  co.cwd = stage;
  const auto res = run_command(confined(cmd, compiler, r.source, includes, stage, r.timeout_seconds), co);
  b.seconds = res.seconds;
  b.diagnostics = res.output;
  b.timed_out = res.timed_out;
  auto discard_stage = [&] { std::filesystem::remove_all(stage, ec); };
  if (res.timed_out) {
    b.diagnostics +=
        "\ncompilation exceeded the limit of " + std::to_string(static_cast<int>(r.timeout_seconds)) + " s";
    discard_stage();
    return b;
  }
  if (res.exit_status != 0 || !std::filesystem::exists(tmp, ec)) {
    discard_stage();
    return b;
  }
  const nlohmann::json manifest{{"library_sha256", sha256_hex(read_file(tmp))},
                                {"key", key},
                                {"compiler", b.compiler},
                                {"source_sha256", b.source_sha256}};
  // The manifest and diagnostics first, the library last: an entry whose library exists is
  // complete (a concurrent build of the same key may have finished first; either is the same).
  std::ofstream(stage / k_manifest) << manifest.dump(2) << "\n";
  std::ofstream(stage / "diagnostics.txt") << b.diagnostics;
  for (const char* name : {k_manifest, "diagnostics.txt", "candidate.so"}) make_read_only(stage / name);
  std::filesystem::rename(stage / k_manifest, dir / k_manifest, ec);
  std::filesystem::rename(stage / "diagnostics.txt", diag_file, ec);
  std::filesystem::rename(tmp, lib, ec);
  discard_stage();
  std::string why;
  if (!verified_entry(dir, lib, why))
    throw internal_error("the build just written to " + dir.string() + " fails its check: " + why);
  b.ok = true;
  if (cuda) b.resources = parse_ptxas_resources(b.diagnostics);
  return b;
}

}  // namespace kjudge
