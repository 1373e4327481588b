// `kjudge loop report DIR --html OUT` (docs/reports.md): the page of a loop run, read from its
// journal and workdir alone — which family won and when, the best speedup with its CI per
// iteration and every judged proposal, the families with their attempts, retirements and
// revivals, the beam at the end, and the accepted improvements with their diffs.
#pragma once

#include <filesystem>
#include <string>

#include "loop/state.hpp"

namespace kjudge::loop {

std::string render_loop_html(const loop_state& st, const std::filesystem::path& workdir);

// The lines of `b` against `a` as a unified diff without context limits ("  " kept, "- " removed,
// "+ " added), or "" when they are equal. Sources longer than `max_lines` lines are not diffed:
// the result then says so.
std::string line_diff(const std::string& a, const std::string& b, std::size_t max_lines = 4000);

}  // namespace kjudge::loop
