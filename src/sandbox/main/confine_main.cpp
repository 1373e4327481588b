// kjudge-confine: runs one program (the compiler, for the builder) inside the build's sandbox.
//   kjudge-confine [--read DIR]... [--read-file FILE]... [--write DIR]... [--write-file FILE]...
//                  [--as-bytes N] [--cpu-seconds N] [--fsize-bytes N] -- PROGRAM [ARG]...
// Drops every capability, sets the limits, restricts the filesystem to what is named (landlock)
// and the system calls (seccomp: no network, no access to other processes; subprocesses allowed,
// a compiler driver runs its passes as children), then executes PROGRAM with the environment it
// was given. Started by the builder (src/builder/builder.cpp) with a clean environment; a
// separate program so that the policy is applied in a fresh single-threaded process, not between
// fork and exec of the multi-threaded controller.
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sandbox/confine.hpp"

namespace {

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "kjudge-confine: %s\nusage: kjudge-confine [--read DIR]... [--read-file FILE]... "
               "[--write DIR]... [--write-file FILE]... [--as-bytes N] [--cpu-seconds N] "
               "[--fsize-bytes N] -- PROGRAM [ARG]...\n",
               why);
  std::exit(126);
}

void set_limit(int resource, unsigned long long value) {
  if (value == 0) return;
  rlimit rl{value, value};
  ::setrlimit(resource, &rl);
}

bool enabled(const nlohmann::json& layer) {
  return layer.is_object() && layer.value("enabled", false);
}

}  // namespace

int main(int argc, char** argv) {
  kjudge::sandbox::fs_rules fs;
  unsigned long long as_bytes = 0, cpu_seconds = 0, fsize_bytes = 0;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (i + 1 >= argc) usage(("missing value after " + a).c_str());
    const char* v = argv[++i];
    if (a == "--read")
      fs.read_dirs.emplace_back(v);
    else if (a == "--read-file")
      fs.read_files.emplace_back(v);
    else if (a == "--write")
      fs.write_dirs.emplace_back(v);
    else if (a == "--write-file")
      fs.write_files.emplace_back(v);
    else if (a == "--as-bytes")
      as_bytes = std::strtoull(v, nullptr, 10);
    else if (a == "--cpu-seconds")
      cpu_seconds = std::strtoull(v, nullptr, 10);
    else if (a == "--fsize-bytes")
      fsize_bytes = std::strtoull(v, nullptr, 10);
    else
      usage(("unknown option " + a).c_str());
  }
  if (i >= argc) usage("no program to run");
  set_limit(RLIMIT_AS, as_bytes);
  set_limit(RLIMIT_CPU, cpu_seconds);
  set_limit(RLIMIT_FSIZE, fsize_bytes);
  set_limit(RLIMIT_CORE, 0);
  // A layer the kernel refuses is not silently skipped: the build does not run unconfined.
  if (!enabled(kjudge::sandbox::drop_capabilities())) usage("cannot drop capabilities");
  const auto landlock = kjudge::sandbox::restrict_filesystem(fs);
  if (!enabled(landlock) && std::getenv("KJUDGE_CONFINE_WITHOUT_LANDLOCK") == nullptr) {
    std::fprintf(stderr,
                 "kjudge-confine: the filesystem cannot be restricted (%s); set "
                 "KJUDGE_CONFINE_WITHOUT_LANDLOCK=1 to build anyway on this kernel\n",
                 landlock.value("reason", std::string("?")).c_str());
    return 126;
  }
  kjudge::sandbox::syscall_rules sr;
  sr.allow_subprocesses = true;
  const auto seccomp = kjudge::sandbox::restrict_syscalls(sr);
  if (!enabled(seccomp)) {
    std::fprintf(stderr, "kjudge-confine: system calls cannot be restricted (%s)\n",
                 seccomp.value("reason", std::string("?")).c_str());
    return 126;
  }
  ::execvp(argv[i], argv + i);
  std::fprintf(stderr, "kjudge-confine: cannot run %s: %s\n", argv[i], std::strerror(errno));
  return 127;
}
