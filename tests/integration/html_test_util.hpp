// Pages of real results for the HTML report tests: run `kjudge eval`, then `kjudge report --html`,
// and, where Chromium is installed, render the page headless (tests/browser/check_page.py).
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_test_util.hpp"
#include "core/hash.hpp"

namespace kjudge::test {

// Occurrences of `needle` in `hay`.
inline std::size_t count_of(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

// `kjudge ARGS... --html OUT` and the page's text ("" if it was not written).
inline std::string html_page(std::vector<std::string> args, const std::string& name) {
  const auto out = test_dir() / (name + ".html");
  std::filesystem::remove(out);
  args.push_back("--html");
  args.push_back(out.string());
  const auto c = kjudge(args);
  EXPECT_EQ(c.r.exit_status, 0) << c.r.output;
  return std::filesystem::exists(out) ? read_file(out) : std::string();
}

// Writes a result document to the test directory and returns its path.
inline std::string write_result(const nlohmann::json& r, const std::string& name) {
  const auto p = test_dir() / (name + ".json");
  std::ofstream(p) << r.dump(2);
  return p.string();
}

// A small loop run for the loop's page (tests/loop/proposer_html.sh): three iterations, three
// families (one of them markup), a rejection, two accepted improvements. Returns its workdir.
inline std::filesystem::path html_loop_run(const std::string& name) {
  const auto dir = test_dir() / name;
  std::filesystem::remove_all(dir);
  const std::string src = KJUDGE_SOURCE_DIR;
  const auto c = kjudge({"loop", "softmax", "--proposer", "sh " + src + "/tests/loop/proposer_html.sh " + src,
                         "--workdir", dir.string(), "--budget", "3", "--hidden", "4", "--eval-budget", "0.5",
                         "--min-rounds", "6", "--torch-baselines", "none", "-q"});
  EXPECT_EQ(c.r.exit_status, 0) << c.r.output;
  return dir;
}

// Three real results for the set page: the honest softmax timed, the fast softmax timed, and a
// wrong one rejected; written into one directory (and returned).
inline std::vector<nlohmann::json> html_result_set(const std::filesystem::path& dir) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string src = KJUDGE_SOURCE_DIR;
  const std::vector<std::vector<std::string>> runs{
      {candidate("ok_honest_softmax.cpp"), "--budget", "1", "--hidden", "2"},
      {src + "/examples/softmax/fast.cpp", "--budget", "1", "--hidden", "2"},
      {candidate("wrong_softmax_off_by_scale.cpp"), "--no-timing", "--hidden", "4"}};
  std::vector<nlohmann::json> out;
  for (const auto& extra : runs) {
    std::vector<std::string> args{"eval", "softmax"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto c = kjudge(args);
    EXPECT_TRUE(c.result.is_object()) << c.r.output;
    std::ofstream(dir / ("r" + std::to_string(out.size()) + ".json")) << c.result.dump(2);
    out.push_back(c.result);
  }
  std::ofstream(dir / "notes.json") << "{\"not\": \"a result\"}";  // other JSON in the directory is skipped
  return out;
}

// The events of a loop's journal.
inline std::vector<nlohmann::json> journal_events(const std::filesystem::path& dir) {
  std::vector<nlohmann::json> out;
  std::ifstream in(dir / "journal.jsonl");
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

// Debian's `chromium` on PATH; "" where there is none.
inline std::string chromium_path() {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  for (std::size_t pos = 0; pos <= dirs.size();) {
    const auto colon = std::min(dirs.find(':', pos), dirs.size());
    const std::filesystem::path exe = std::filesystem::path(dirs.substr(pos, colon - pos)) / "chromium";
    if (colon > pos && ::access(exe.c_str(), X_OK) == 0) return exe.string();
    pos = colon + 1;
  }
  return "";
}

// Renders `page` headless (its DOM after parsing, and a screenshot) and runs the checker with
// `checks` (--count CLASS=N, --min CLASS=N, --text S). Returns the checker's run.
inline command_result browser_check(const std::string& chromium, const std::filesystem::path& page,
                                    const std::vector<std::string>& checks) {
  const auto dom = page.string() + ".dom.html";
  const auto png = page.string() + ".png";
  // Chromium's diagnostics (no D-Bus in a container) go to stderr; the DOM alone to stdout.
  const std::string flags = "--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=" +
                            (test_dir() / "chromium-profile").string();
  const auto url = "file://" + std::filesystem::absolute(page).string();
  command_options o;
  o.timeout_seconds = 120;
  auto d =
      run_command({"sh", "-c", chromium + " " + flags + " --dump-dom '" + url + "' > '" + dom + "' 2>/dev/null"}, o);
  EXPECT_EQ(d.exit_status, 0) << d.output;
  auto s = run_command({chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--user-data-dir=" + (test_dir() / "chromium-profile").string(), "--window-size=1200,1600",
                        "--screenshot=" + png, url},
                       o);
  EXPECT_EQ(s.exit_status, 0) << s.output;
  std::vector<std::string> argv{
      "python3", std::string(KJUDGE_TEST_DATA) + "/browser/check_page.py", "--dom", dom, "--png", png};
  argv.insert(argv.end(), checks.begin(), checks.end());
  return run_command(argv, o);
}

}  // namespace kjudge::test
