// The anti-cheat and correctness rules (DESIGN.md §5): stable names, one-line descriptions (shown
// by `kjudge rules`), and the verdict status each produces. Detection code lives where the
// evidence is (worker guard zones, oracle, timing cross-checks); this is the catalogue.
#pragma once

#include <string_view>
#include <vector>

#include "guards/verdict.hpp"

namespace kjudge {

struct rule_info {
  std::string_view name;
  verdict_status status;
  std::string_view description;
};

const std::vector<rule_info>& all_rules();
const rule_info& rule(std::string_view name);  // throws std::out_of_range for unknown names

}  // namespace kjudge
