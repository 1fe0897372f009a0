#pragma once
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

// Tolerant readers for Run sections: a saved run may come from an older or partial engine, so every field may be
// missing, null or of an unexpected type. These return "absent" instead of throwing, and the caller decides what
// an absent fact means (usually: the rule or hypothesis cannot judge it).
namespace linkscope::diagnose {

// `object[key]` when object is an object holding key with a non-null value; nullptr otherwise.
const nlohmann::json* find_field(const nlohmann::json& object, std::string_view key);

std::optional<double> opt_double(const nlohmann::json& object, std::string_view key);
std::optional<long long> opt_int(const nlohmann::json& object, std::string_view key);
std::optional<bool> opt_bool(const nlohmann::json& object, std::string_view key);
// Strings as they are; numbers and booleans are spelled out (an env value written as 1 reads "1").
std::optional<std::string> opt_string(const nlohmann::json& object, std::string_view key);
std::string string_or(const nlohmann::json& object, std::string_view key, std::string fallback);

// A number, or a statistic object's "median" ({"median": 393.8, "min": ...}).
std::optional<double> opt_median(const nlohmann::json& object, std::string_view key);

// The array at key, or an empty array.
const nlohmann::json& array_or_empty(const nlohmann::json& object, std::string_view key);
// The object at key, or an empty object.
const nlohmann::json& object_or_empty(const nlohmann::json& object, std::string_view key);

}  // namespace linkscope::diagnose
