#include "cli/store_command.hpp"

#include <CLI/CLI.hpp>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "store/merge.hpp"
#include "store/store.hpp"

namespace kjudge::cli {

namespace {

struct merge_flags {
  std::string out;
  std::vector<std::string> sources;
};

CLI::App* g_merge = nullptr;
merge_flags g_flags;

void print_counts(const std::string& label, const merge_counts& c) {
  std::printf("%-48s read %" PRId64 ", added %" PRId64 ", already present %" PRId64 "\n", label.c_str(), c.read,
              c.added, c.present);
}

int cmd_merge(const merge_flags& f) {
  const merge_counts total = merge_stores(f.out, f.sources, [](const std::string& src, const merge_counts& c) {
    print_counts(store::display_name(src), c);
    std::fflush(stdout);
  });
  print_counts("total into " + store::display_name(f.out), total);
  return 0;
}

}  // namespace

void add_store_command(CLI::App& app) {
  auto* store_cmd = app.add_subcommand("store", "maintain result stores");
  store_cmd->require_subcommand(1);
  g_merge = store_cmd->add_subcommand(
      "merge",
      "fold stores into OUT: rows keep their dedup key, so merging a source twice adds nothing; a row "
      "without a key is present when OUT has one with the same candidate sha256, created_at, problem, "
      "dtype and device");
  g_merge->add_option("OUT", g_flags.out, "the store to fill: an SQLite file or a postgresql:// URL")->required();
  g_merge->add_option("SRC", g_flags.sources, "stores to read (SQLite files or postgresql:// URLs)")->required();
}

bool run_store_command_if_selected(int& status) {
  if (g_merge == nullptr || !g_merge->parsed()) return false;
  status = cmd_merge(g_flags);
  return true;
}

}  // namespace kjudge::cli
