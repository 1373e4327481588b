// The result document's name and its verdict statuses (docs/result-schema.md, `verdict`): the
// one list of them and their names, for the judge that decides them and every reader of a
// document, whatever its layer.
#pragma once

#include <optional>
#include <string_view>

namespace kjudge {

inline constexpr std::string_view result_schema_id = "kjudge.result/1";

enum class verdict_status {
  ok_faster,
  ok_not_faster,
  wrong_result,
  compile_error,
  runtime_error,
  crash,
  timeout,
  resource_limit,
  hack,
  bad_input
};

std::string_view verdict_status_name(verdict_status s);
// The status a name stands for; nullopt for a name that is none (an empty or unknown one).
std::optional<verdict_status> parse_verdict_status(std::string_view name);
bool is_ok(verdict_status s);
// Whether a status name is a correct candidate's (ok_faster, ok_not_faster); false for any other
// name, an unknown one included.
bool is_ok_status(std::string_view name);
// Exit status of `kjudge eval` for a verdict: 0 correct, 1 rejected, 2 bad input.
int exit_status_for(verdict_status s);

}  // namespace kjudge
