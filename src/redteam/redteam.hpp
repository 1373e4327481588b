// The red-team and honest corpora (issue 5): every attack must be caught with the rule its
// manifest names, every honest candidate must pass. `kjudge redteam` runs both and prints the
// table; tests/integration/test_redteam.cpp asserts the same through `kjudge eval`.
//
// Manifests: tests/redteam/manifest.toml ([[attack]]) and tests/honest/manifest.toml
// ([[honest]]); their keys are described at the top of each file.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "judge/result.hpp"

namespace kjudge {

// One outcome a manifest accepts: a verdict status and, for failing verdicts, the rule.
struct expected_outcome {
  std::string status;  // e.g. "hack", "wrong_result", "ok_not_faster"
  std::string rule;    // empty: any rule (or none)
  [[nodiscard]] std::string text() const { return rule.empty() ? status : status + ":" + rule; }
};

struct corpus_entry {
  std::string kind;            // "attack" | "honest"
  std::filesystem::path file;  // absolute
  std::string name;            // the file's path relative to its corpus ("cpu/identity_softmax.cpp")
  std::string problem;
  std::string device = "cpu";
  std::string dtype;                     // empty: the problem's default
  std::string pattern;                   // attacks: the DESIGN.md §5 pattern; honest: what is unusual about it
  std::vector<expected_outcome> expect;  // attacks; honest candidates expect any ok status
  bool timing = false;                   // judged with the timing phase
  bool harmless = false;                 // an attack that cannot gain anything: expected to pass
  double min_candidate_median_s = 0;     // harmless attacks: the timed figure must be at least this
  std::vector<std::string> args;         // extra `kjudge eval` flags (the runner honours --seed)
};

// Reads a manifest (throws usage_error with file:line on malformed content). `kind` is "attack"
// or "honest"; entries of other devices are kept (the caller filters).
std::vector<corpus_entry> load_corpus_manifest(const std::filesystem::path& manifest, const std::string& kind);

// Whether a result document meets the entry's expectation; `why` says what did not match.
bool outcome_matches(const corpus_entry& e, const result_document& result, std::string* why = nullptr);

struct redteam_options {
  std::string device = "cpu";
  std::filesystem::path tests_dir;  // holds redteam/ and honest/; default <source>/tests
  std::vector<std::string> only;    // substrings of entry names; empty: all
  bool attacks = true;
  bool honest = true;
  int hidden_count = 6;  // hidden cases per evaluation
  double timing_budget_seconds = 1.0;
  bool honest_timing = false;  // judge every honest candidate with the timing phase too
  int jobs = 1;                // evaluations at once (each in its own controller process)
};

struct redteam_row {
  corpus_entry entry;
  std::string status;  // the verdict's status, or "no verdict" when the controller died
  std::string rule;
  std::string reason;    // first reason of the verdict, or why there is none
  bool success = false;  // attack caught (or harmless as expected) / honest candidate passed
  double seconds = 0;
};

struct redteam_report {
  std::string device;
  std::vector<redteam_row> rows;
  int attacks = 0, caught = 0, harmless = 0, missed = 0;
  int honest = 0, passed = 0, false_positives = 0;
  [[nodiscard]] bool clean() const { return missed == 0 && false_positives == 0; }
  [[nodiscard]] nlohmann::json to_json() const;
  [[nodiscard]] std::string table() const;  // the table, with totals
};

// Runs the selected entries. Every evaluation runs kjudge::evaluate in a forked controller
// process of its own, so that an attack that got past the sandbox and killed or crippled its
// controller is reported as missed instead of ending the run. `on_row` is called as rows finish.
redteam_report run_redteam(const redteam_options& o, const std::function<void(const redteam_row&)>& on_row = {});

}  // namespace kjudge
