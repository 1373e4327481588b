#include "core/verdict_status.hpp"

#include <array>

namespace kjudge {

namespace {

constexpr std::array k_all{verdict_status::ok_faster,     verdict_status::ok_not_faster,  verdict_status::wrong_result,
                           verdict_status::compile_error, verdict_status::runtime_error,  verdict_status::crash,
                           verdict_status::timeout,       verdict_status::resource_limit, verdict_status::hack,
                           verdict_status::bad_input};

}  // namespace

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

std::optional<verdict_status> parse_verdict_status(std::string_view name) {
  for (const verdict_status s : k_all)
    if (verdict_status_name(s) == name) return s;
  return std::nullopt;
}

bool is_ok(verdict_status s) {
  return s == verdict_status::ok_faster || s == verdict_status::ok_not_faster;
}

bool is_ok_status(std::string_view name) {
  const auto s = parse_verdict_status(name);
  return s && is_ok(*s);
}

int exit_status_for(verdict_status s) {
  if (is_ok(s)) return 0;
  if (s == verdict_status::bad_input) return 2;
  return 1;
}

}  // namespace kjudge
