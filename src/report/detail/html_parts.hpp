// Parts of the evaluation page (report/html.cpp) that other pages draw with: the e2e page
// (report/html_e2e.cpp) shows its model-level figures in the same plots and tables.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kjudge::detail {

// A mark of the speedup forest plot: a median with its 95% CI (or a hollow point, `estimate` saying
// why there is no interval), under a line naming its `case_label`.
struct forest_row {
  std::string case_label, baseline;
  double median = 0;
  std::optional<std::pair<double, double>> ci;
  bool strongest = false;
  std::string estimate;  // why there is no interval; empty when there is one
  bool total = false;    // the geometric mean over cases
};
std::string forest_plot(const std::vector<forest_row>& rows);

// One box per party (samples: median_s, q25_s, q75_s, min_s, max_s, round_medians_s) of the
// timing case `t` ({"id", "shape"}), measured `mode`.
struct party_samples {
  std::string name;
  const nlohmann::json* s;
  bool candidate;
};
std::string box_plot(const nlohmann::json& t, const std::vector<party_samples>& parties, const std::string& mode);

// The opening of a rejection's "why" section: its heading ("Why rejected: " + lead + the verdict's
// status and rule) and the verdict's reasons; the caller adds the case and closes the section.
std::string why_opening(std::string_view lead, const nlohmann::json& verdict);

// A failing case's figures as (name, value) rows.
std::vector<std::pair<std::string, std::string>> failing_case_facts(const nlohmann::json& c);

// The sections of an evaluation's page below its header: a rejection's why (where `with_why`), the
// plots, tables, build and environment.
std::string evaluation_sections(const nlohmann::json& r, bool with_why);

// "12.3 us" of r[key], "–" when absent.
std::string seconds_text(const nlohmann::json& j, std::string_view key);

}  // namespace kjudge::detail
