#include "guards/verdict.hpp"

namespace kjudge {

nlohmann::json verdict::to_json() const {
  nlohmann::json j{{"status", std::string(verdict_status_name(status))},
                   {"rule", rule.empty() ? nlohmann::json(nullptr) : nlohmann::json(rule)},
                   {"reasons", reasons}};
  if (!evidence.is_null()) j["evidence"] = evidence;
  if (!timed) j["timed"] = false;
  return j;
}

}  // namespace kjudge
