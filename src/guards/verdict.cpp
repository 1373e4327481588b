#include "guards/verdict.hpp"

namespace kjudge {

std::string_view verdict_status_name(verdict_status s) {
  switch (s) {
    case verdict_status::ok_faster:
      return "ok_faster";
    case verdict_status::ok_not_faster:
      return "ok_not_faster";
    case verdict_status::wrong_result:
      return "wrong_result";
    case verdict_status::compile_error:
      return "compile_error";
    case verdict_status::runtime_error:
      return "runtime_error";
    case verdict_status::crash:
      return "crash";
    case verdict_status::timeout:
      return "timeout";
    case verdict_status::resource_limit:
      return "resource_limit";
    case verdict_status::hack:
      return "hack";
    case verdict_status::bad_input:
      return "bad_input";
  }
  return "?";
}

bool is_ok(verdict_status s) {
  return s == verdict_status::ok_faster || s == verdict_status::ok_not_faster;
}

int exit_status_for(verdict_status s) {
  if (is_ok(s)) return 0;
  if (s == verdict_status::bad_input) return 2;
  return 1;
}

nlohmann::json verdict::to_json() const {
  nlohmann::json j{{"status", std::string(verdict_status_name(status))},
                   {"rule", rule.empty() ? nlohmann::json(nullptr) : nlohmann::json(rule)},
                   {"reasons", reasons}};
  if (!evidence.is_null()) j["evidence"] = evidence;
  if (!timed) j["timed"] = false;
  return j;
}

}  // namespace kjudge
