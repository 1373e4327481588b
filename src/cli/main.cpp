// kjudge: the controller's command line (DESIGN.md §2.3). Thin: parsing, then calls into the core.
#include <sys/prctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"

int main(int argc, char** argv) {
  // The controller holds the secret seed: make its memory and /proc entries unreadable to
  // workers (which run as the same user but without CAP_SYS_PTRACE).
  ::prctl(PR_SET_DUMPABLE, 0);
  try {
    return kjudge::cli::run(argc, argv);
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
