// HTML reports (docs/reports.md): one self-contained page per evaluation, per set of results, and
// (loop/loop_html.hpp) per loop run. A page holds its styles and its plots (SVG drawn by kjudge,
// report/svg.hpp): no script, no network, every number as text. Every string from a result
// is escaped: a candidate's name, kj_info() or message can only ever be text on the page.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kjudge {

// The page of one result document ("kjudge.result/1"). A rejected candidate's page leads with
// why: the rule, its reasons, the failing case, the worst element and what the envelope allowed.
std::string render_html(const nlohmann::json& result);

// The page of a `kjudge e2e` result (one with an `e2e` section; render_html gives it this page): the
// e2e verdict, and for a rejection the level and case that failed, first; the kernel-level verdict
// and speedup; each model configuration's time and the target's share of it; the model-level
// speedups measured against Amdahl's predictions; the model-level cases; then the evaluation's own
// sections.
std::string render_html_e2e(const nlohmann::json& result);

// The page of a set of results (a suite, a KernelBench level, a batch of runs): KernelBench's
// fast_p against eager torch, the strongest torch.compile mode and the strongest baseline, one row
// per result (fastest first), verdicts and rules counted. `labels[i]` names results[i] (its file);
// an empty label falls back to the problem's name.
std::string render_html_set(const std::vector<nlohmann::json>& results, const std::vector<std::string>& labels);

namespace html {

// The page around `body`: doctype, charset, title, the shared inline style sheet.
std::string page(std::string_view title, const std::string& body);

// A table of text cells (escaped here); `numeric[c]` right-aligns column c. `row_class[i]`, where
// given, is row i's class (e.g. a verdict).
std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                  const std::vector<bool>& numeric = {}, const std::vector<std::string>& row_class = {},
                  std::string_view css_class = "");

// A verdict as a coloured badge: ok_faster green, ok_not_faster amber, the rest red.
std::string verdict_badge(std::string_view status);

// A two-column table of facts (name, value), values escaped.
std::string facts(const std::vector<std::pair<std::string, std::string>>& rows);

}  // namespace html

}  // namespace kjudge
