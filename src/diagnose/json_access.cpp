#include "diagnose/json_access.hpp"

#include <cmath>

namespace linkscope::diagnose {

namespace {
const nlohmann::json& empty_array() {
  static const nlohmann::json value = nlohmann::json::array();
  return value;
}
const nlohmann::json& empty_object() {
  static const nlohmann::json value = nlohmann::json::object();
  return value;
}
}  // namespace

const nlohmann::json* find_field(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<double> opt_double(const nlohmann::json& object, std::string_view key) {
  const auto* value = find_field(object, key);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  const double number = value->get<double>();
  if (!std::isfinite(number)) return std::nullopt;
  return number;
}

std::optional<long long> opt_int(const nlohmann::json& object, std::string_view key) {
  const auto* value = find_field(object, key);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  if (value->is_number_float()) {
    const double number = value->get<double>();
    if (!std::isfinite(number) || number != std::floor(number)) return std::nullopt;
    return static_cast<long long>(number);
  }
  return value->get<long long>();
}

std::optional<bool> opt_bool(const nlohmann::json& object, std::string_view key) {
  const auto* value = find_field(object, key);
  if (value == nullptr || !value->is_boolean()) return std::nullopt;
  return value->get<bool>();
}

std::optional<std::string> opt_string(const nlohmann::json& object, std::string_view key) {
  const auto* value = find_field(object, key);
  if (value == nullptr) return std::nullopt;
  if (value->is_string()) return value->get<std::string>();
  if (value->is_number_integer()) return std::to_string(value->get<long long>());
  if (value->is_boolean()) return value->get<bool>() ? "true" : "false";
  if (value->is_number()) return value->dump();
  return std::nullopt;
}

std::string string_or(const nlohmann::json& object, std::string_view key, std::string fallback) {
  auto value = opt_string(object, key);
  return value ? *value : std::move(fallback);
}

std::optional<double> opt_median(const nlohmann::json& object, std::string_view key) {
  const auto* value = find_field(object, key);
  if (value == nullptr) return std::nullopt;
  if (value->is_number()) return opt_double(object, key);
  if (value->is_object()) return opt_double(*value, "median");
  return std::nullopt;
}

const nlohmann::json& array_or_empty(const nlohmann::json& object, std::string_view key) {
  const auto* value = find_field(object, key);
  return value != nullptr && value->is_array() ? *value : empty_array();
}

const nlohmann::json& object_or_empty(const nlohmann::json& object, std::string_view key) {
  const auto* value = find_field(object, key);
  return value != nullptr && value->is_object() ? *value : empty_object();
}

}  // namespace linkscope::diagnose
