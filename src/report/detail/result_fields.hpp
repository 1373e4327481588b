// Lenient reading of result documents and the text of their evidence, shared by the renderers
// (report.cpp: console, Markdown; html.cpp: the HTML page). Every field of a result may be null or
// absent: these return nullptr, nullopt or an empty array rather than throw.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/json_path.hpp"

namespace kjudge::detail {

using json = nlohmann::json;

// The fields themselves are read with core/json_path (json_at, string_at, number_at, array_at).
std::string str_or(const json& j, std::initializer_list<std::string_view> keys, std::string fallback);
// [lo, hi] of an object's "ci95" array, if well formed.
std::optional<std::pair<double, double>> ci95(const json& j);
bool is_true(const json& j, std::string_view key);
// A scalar as text for tables of free-form objects (env, symbols); null is "–".
std::string scalar_text(const json& v);

// Fixed notation with `sig` significant digits, never scientific.
std::string fixed_sig(double v, int sig = 3);
// Rounds to `sig` significant digits; returns the rounded value and its decimal exponent.
std::pair<double, int> round_sig(double v, int sig);
// An error figure with 3 significant digits; "–" when absent.
std::string err_text(const std::optional<double>& v);
// A value with 9 significant digits (outputs, references).
std::string value_text(double v);
// 0.42 -> "42%", 0.042 -> "4.2%".
std::string percent(double fraction);
// "±1.2%": half the interquartile range of a sample summary relative to its median.
std::optional<std::string> spread_text(const json& s);
// "1.83x [1.79, 1.87]" from {median, ci95}; "–" without a median.
std::string speedup_with_ci(const json& s);
std::string index_text(const json& idx);
std::string candidate_file_name(const json& r);

// "10 of 11 cases pass (2 public, 6 hidden, 3 bench), 1 fail".
std::string cases_sentence(const json& r);
std::optional<std::string> rechecks_sentence(const json& r);
// The case that caused a rejection, or nullptr.
const json* first_failing_case(const json& r);
// Error figures, worst element and the envelope there of a case; nullopt where it has none.
std::optional<std::string> case_errors_text(const json& c);
std::optional<std::string> worst_text(const json& c);
std::optional<std::string> envelope_text(const json& c);
// "bench-0 M=512 N=1024".
std::string case_label(const json& c);

}  // namespace kjudge::detail
