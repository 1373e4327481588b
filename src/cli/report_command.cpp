#include "cli/report_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "core/error.hpp"
#include "core/hash.hpp"
#include "core/paths.hpp"
#include "loop/journal.hpp"
#include "report/html.hpp"
#include "report/report.hpp"
#include "store/store.hpp"

namespace kjudge::cli {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct report_flags {
  std::vector<std::string> sources;
  std::string html, md, db;
  CLI::App* cmd = nullptr;
};

report_flags& flags() {
  static report_flags f;
  return f;
}

struct loaded {
  json result;
  std::string label;  // the file, or "id N" of the store
};

bool is_result(const json& j) {
  return j.is_object() && j.value("schema", "") == result_schema_id;
}

json parse_result(const fs::path& file) {
  json j;
  try {
    j = json::parse(read_file(file));
  } catch (const json::exception& e) {
    throw usage_error(file.string() + ": not JSON: " + e.what());
  }
  return j;
}

// A file, every result document directly in a directory (sorted by name), or an evaluation's id
// in the store.
void load_source(const std::string& src, const std::string& db, std::vector<loaded>& out) {
  const fs::path p(src);
  if (fs::is_directory(p)) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(p))
      if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::size_t found = 0;
    for (const auto& f : files) {
      // A directory of results may hold other files (a summary, a log): skipped, and said so.
      json j;
      try {
        j = parse_result(f);
      } catch (const usage_error& e) {
        std::fprintf(stderr, "skipped %s\n", e.what());
        continue;
      }
      if (!is_result(j)) continue;
      out.push_back({std::move(j), f.filename().string()});
      ++found;
    }
    if (found == 0) throw usage_error(src + ": no result documents (" + std::string(result_schema_id) + ") in it");
    return;
  }
  if (fs::exists(p)) {
    json j = parse_result(p);
    if (!is_result(j))
      throw usage_error(src + ": not a result document (schema " + std::string(result_schema_id) + ")");
    out.push_back({std::move(j), p.filename().string()});
    return;
  }
  if (!src.empty() && std::all_of(src.begin(), src.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    store st(db.empty() ? default_db_path() : fs::path(db));
    auto j = st.get(std::stoll(src));
    if (!j) throw usage_error("no evaluation with id " + src + " in " + st.path().string());
    out.push_back({std::move(*j), "id " + src});
    return;
  }
  throw usage_error(src + ": no such file, directory or evaluation id");
}

int run_report() {
  auto& f = flags();
  std::vector<loaded> results;
  for (const auto& s : f.sources) load_source(s, f.db, results);
  if (!f.md.empty()) {
    if (results.size() != 1) throw usage_error("report --md: takes one result");
    loop::write_file_atomic(f.md, render_markdown(results[0].result));
  }
  if (!f.html.empty()) {
    if (results.size() == 1) {
      loop::write_file_atomic(f.html, render_html(results[0].result));
    } else {
      std::vector<json> docs;
      std::vector<std::string> labels;
      for (const auto& r : results) {
        docs.push_back(r.result);
        labels.push_back(r.label);
      }
      loop::write_file_atomic(f.html, render_html_set(docs, labels));
    }
    std::fprintf(stderr, "wrote %s\n", f.html.c_str());
  }
  if (f.html.empty() && f.md.empty()) {
    std::vector<json> docs;
    for (const auto& r : results) docs.push_back(r.result);
    std::cout << (docs.size() == 1 ? render_console(docs[0], false) : render_verdict_table(docs, false));
  }
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto& f = flags();
  f.cmd =
      app.add_subcommand("report", "report result documents: a console summary, or a page (--html) or Markdown (--md)");
  f.cmd
      ->add_option("SOURCE", f.sources,
                   "a result document (kjudge eval --json), a directory of them, or an evaluation's id in the store")
      ->required();
  f.cmd->add_option("--html", f.html,
                    "write a self-contained HTML page: one result's evaluation, or several results' set page");
  f.cmd->add_option("--md", f.md, "write one result's Markdown report");
  f.cmd->add_option(
      "--db", f.db,
      "store for ids: SQLite file or postgresql:// URL (default: $KJUDGE_DB or ~/.local/share/kjudge/kjudge.db)");
}

bool run_report_command_if_selected(int& exit_status) {
  auto& f = flags();
  if (f.cmd == nullptr || !f.cmd->parsed()) return false;
  exit_status = run_report();
  return true;
}

}  // namespace kjudge::cli
