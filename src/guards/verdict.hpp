// Verdicts (DESIGN.md §2.3): a candidate's failure is data, never an exception or exit().
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/verdict_status.hpp"

namespace kjudge {

struct verdict {
  verdict_status status = verdict_status::ok_not_faster;
  std::string rule;                  // stable rule name (guards/rules.hpp), empty if none
  std::vector<std::string> reasons;  // human-readable, most important first
  nlohmann::json evidence;           // rule-specific: case, call, buffer, bytes, ...
  // false for a correct candidate that was not timed (--no-timing): ok_not_faster then says
  // nothing about speed, and reports say "not timed".
  bool timed = true;

  [[nodiscard]] nlohmann::json to_json() const;
};

// A check's outcome: its value, or the verdict that rejects the candidate. Checks return one and
// the phase that ran them decides what a rejection ends (judge/): nothing is thrown for a
// candidate's failure.
template <class T>
class or_verdict {
 public:
  or_verdict(T value) : m_v(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  or_verdict(verdict v) : m_v(std::in_place_index<1>, std::move(v)) {}    // NOLINT: implicit by design
  [[nodiscard]] bool ok() const { return m_v.index() == 0; }
  [[nodiscard]] T& value() { return std::get<0>(m_v); }
  [[nodiscard]] verdict& rejection() { return std::get<1>(m_v); }

 private:
  std::variant<T, verdict> m_v;
};

}  // namespace kjudge
