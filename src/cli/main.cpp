// kjudge: the controller's command line (DESIGN.md §2.3). Thin: parsing, then calls into the core.
#include <sys/prctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/guardian.hpp"
#include "core/interrupt.hpp"
#include "pool/process_census.hpp"

namespace {

// /proc/<pid>/cmdline stays readable by every process of the machine, non-dumpable or not, and
// it shows the process's own argument memory. A --seed given to reproduce a run is the secret
// from which every hidden case and recheck decision derives: the parser gets a private copy of
// the arguments, and the value in the original memory is overwritten with 'x'.
std::vector<char*> private_argv(int argc, char** argv, std::vector<std::string>& storage) {
  storage.assign(argv, argv + argc);
  for (int i = 0; i < argc; ++i) {
    char* value = nullptr;
    if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
      value = argv[i + 1];
    else if (std::strncmp(argv[i], "--seed=", 7) == 0)
      value = argv[i] + 7;
    if (value != nullptr) std::memset(value, 'x', std::strlen(value));
  }
  std::vector<char*> out;
  for (auto& s : storage) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  // The controller holds the secret seed: make its memory and /proc entries unreadable to
  // workers (which run as the same user but without CAP_SYS_PTRACE).
  ::prctl(PR_SET_DUMPABLE, 0);
  // Processes a worker leaves behind become the controller's children (to be found, killed and
  // reaped), and whatever is still running when kjudge ends, however it ends, is killed by its
  // guardian (core/guardian.hpp), forked now while kjudge has one thread.
  kjudge::become_subreaper();
  kjudge::guardian::start(argc, argv);
  // Ctrl-C, SIGTERM, SIGHUP: recorded, children terminated, then exit (core/interrupt.hpp).
  kjudge::interrupt::install();
  std::vector<std::string> arg_storage;
  std::vector<char*> args = private_argv(argc, argv, arg_storage);
  try {
    return kjudge::cli::run(argc, args.data());
  } catch (const kjudge::usage_error& e) {
    std::fprintf(stderr, "kjudge: %s\n", e.what());
    return 2;
  } catch (const kjudge::internal_error& e) {
    std::fprintf(stderr, "kjudge: internal error: %s\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kjudge: internal error: %s\n", e.what());
    return 3;
  }
}
