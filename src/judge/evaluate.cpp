#include "judge/evaluate.hpp"

#include <algorithm>
#include <sstream>

#include "judge/detail/evaluation.hpp"

namespace kjudge {

sanitizer_summary parse_sanitizer_report(const std::string& text) {
  sanitizer_summary s;
  std::stringstream in(text);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) {
    // "========= ERROR SUMMARY: 3 errors" (racecheck: "RACECHECK SUMMARY: 1 hazard displayed
    // (1 error, 0 warnings)").
    if (const auto at = line.find("ERROR SUMMARY: "); at != std::string::npos) {
      s.found_summary = true;
      s.errors = std::atol(line.c_str() + at + 15);
    } else if (const auto rc = line.find("RACECHECK SUMMARY: "); rc != std::string::npos) {
      s.found_summary = true;
      if (const auto e = line.find('('); e != std::string::npos)
        s.errors = std::max(s.errors, std::atol(line.c_str() + e + 1));
    }
    if (line.rfind("========= ", 0) == 0 && s.first_error.empty() &&
        (line.find("Invalid") != std::string::npos || line.find("Error") != std::string::npos ||
         line.find("hazard") != std::string::npos || line.find("Uninitialized") != std::string::npos ||
         line.find("Race") != std::string::npos || line.find("Barrier") != std::string::npos) &&
        line.find("SUMMARY") == std::string::npos)
      s.first_error = line.substr(10);
    if (lines.size() < 40 && line.rfind("========= ", 0) == 0) lines.push_back(line);
  }
  for (const auto& l : lines) s.excerpt += l + "\n";
  return s;
}

int default_worker_epochs(const std::string& device, int min_rounds) {
  return device == "cuda" ? std::clamp(min_rounds, 1, 3) : 1;
}

// The phases (judge/detail/evaluation.hpp): check options (the constructor: every usage error up
// front) -> build parties -> launch workers -> correctness -> timing -> summaries -> sanitizer.
result_document evaluate(const eval_options& o) {
  detail::evaluation e(o);
  return result_document::from_json(e.run());
}

}  // namespace kjudge
