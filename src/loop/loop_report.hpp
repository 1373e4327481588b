// `kjudge loop report DIR`: the trajectory of a run read from its journal alone — best time over
// iterations per family, every accepted improvement, retired families with their reasons — as a
// table and an SVG plot generated here (no plotting dependency).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "loop/state.hpp"

namespace kjudge::loop {

// Replays WORKDIR/journal.jsonl (read only). Throws usage_error if DIR holds no run.
loop_state load_run(const std::filesystem::path& workdir);

// The start (first correct judgement) and best of a run, and their ratios: "time_ratio" is the
// start's time over the best's (geometric means over bench cases of the candidate's median),
// "speedup_ratio" the best's speedup over the start's. Null fields when there is nothing correct.
nlohmann::json trajectory_summary(const loop_state& st);

// "1.23x [1.10, 1.31]" from a proposal's summary (median, lo, hi); "1.23x (estimate, no CI)" where
// the judgement had too few rounds for one; "-" without a speedup.
std::string ci_text(const nlohmann::json& summary);

std::string render_loop_report(const loop_state& st, const std::filesystem::path& workdir,
                               const std::filesystem::path& svg);

// Best time so far per family over iterations (log scale), every correct judgement as a point,
// rejected ones as crosses along the top.
std::string render_trajectory_svg(const loop_state& st);

}  // namespace kjudge::loop
