// Reports of result documents ("kjudge.result/1", docs/result-schema.md): the JSON file itself,
// Markdown, the console summary of `kjudge eval`, the verdict table of `kjudge validate --all`
// and the table of `kjudge history`.
//
// Renderers read only the document (no clock, no environment), so a document renders the same
// everywhere; golden files in tests/golden/ pin the output. Every field may be null or absent:
// a renderer shows what is there and never throws on a well-formed JSON value.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/verdict_status.hpp"  // result_schema_id, verdict statuses
#include "store/store.hpp"

namespace kjudge {

std::string render_markdown(const nlohmann::json& result);

// Compact summary for a terminal; `color` adds ANSI colours to the verdict.
std::string render_console(const nlohmann::json& result, bool color);

// One row per result: problem, candidate file name, verdict, rule, speedup [CI], evidence.
std::string render_verdict_table(const std::vector<nlohmann::json>& results, bool color);

// current_spec_sha256: the problem.toml as it is now; rows judged against another are marked.
std::string render_history(const std::vector<history_row>& rows, const std::string& current_spec_sha256 = "");

// Seconds with 3 significant digits in the unit that keeps the mantissa in [1, 1000):
// 4.12e-7 -> "412 ns", 1.234e-6 -> "1.23 us", 4.56e-3 -> "4.56 ms", 1.2 -> "1.20 s".
// Non-finite -> "n/a".
std::string format_seconds(double seconds);

// Bytes with 3 significant digits in binary units, mantissa below 1000: 1536 -> "1.50 KiB",
// 1000 KiB -> "0.977 MiB"; below 1 KiB exact: "12 B".
std::string format_bytes(double bytes);

// With several sets of workers: "spread between sets 0.91%, rounds alone would give 0.05%"
// (timing.process_spread); empty where the result has no such figures. Shared by eval's summary
// and validate's lines.
std::string process_spread_note(const nlohmann::json& result);

// One line per comparison in a result's timing.kernel_census (judge/kernel_census.hpp) of the
// candidate with a baseline running the same code: whether they launched the same kernels, and
// their kernels' and windows' device times. Shared by eval's summary and validate's lines; empty
// where there is no census.
std::vector<std::string> kernel_census_lines(const nlohmann::json& census);

// A ratio with 3 significant digits and an "x": 1.834 -> "1.83x", 374.2 -> "374x".
std::string format_speedup(double ratio);

}  // namespace kjudge
