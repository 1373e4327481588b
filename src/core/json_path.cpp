#include "core/json_path.hpp"

namespace kjudge {

const nlohmann::json* json_at(const nlohmann::json& j, std::initializer_list<std::string_view> keys) {
  if (j.is_null()) return nullptr;
  const nlohmann::json* cur = &j;
  for (const std::string_view k : keys) {
    if (!cur->is_object()) return nullptr;
    const auto it = cur->find(k);
    if (it == cur->end() || it->is_null()) return nullptr;
    cur = &*it;
  }
  return cur;
}

std::optional<std::string> string_at(const nlohmann::json& j, std::initializer_list<std::string_view> keys) {
  const nlohmann::json* v = json_at(j, keys);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

std::optional<double> number_at(const nlohmann::json& j, std::initializer_list<std::string_view> keys) {
  const nlohmann::json* v = json_at(j, keys);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

const nlohmann::json& array_at(const nlohmann::json& j, std::initializer_list<std::string_view> keys) {
  static const nlohmann::json empty = nlohmann::json::array();
  const nlohmann::json* v = json_at(j, keys);
  return v != nullptr && v->is_array() ? *v : empty;
}

}  // namespace kjudge
