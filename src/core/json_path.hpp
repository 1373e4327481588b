// Reading a value at a path of object keys in a JSON document whose every field may be null or
// absent (the result document, docs/result-schema.md: Conventions; the loop's journal). One
// reader for all: a step that is missing, null or not an object ends the walk with nothing.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace kjudge {

// The value at `keys` under `j`, or nullptr when a step is missing, null or not an object (the
// value itself is never null). An empty path is `j` itself, unless it is null.
const nlohmann::json* json_at(const nlohmann::json& j, std::initializer_list<std::string_view> keys);
// The string, number or array there; nullopt (an empty array) where it is absent or another type.
std::optional<std::string> string_at(const nlohmann::json& j, std::initializer_list<std::string_view> keys);
std::optional<double> number_at(const nlohmann::json& j, std::initializer_list<std::string_view> keys);
const nlohmann::json& array_at(const nlohmann::json& j, std::initializer_list<std::string_view> keys);

}  // namespace kjudge
