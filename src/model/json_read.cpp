#include "model/json_read.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope::model {

namespace {

const nlohmann::json& null_json() {
  static const nlohmann::json value;
  return value;
}

const char* type_word(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::number_float: return "a fractional number";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return "an integer";
    default: return "something else";
  }
}

// An integral value of a number (1e3 and 4.0 count; 4.5 does not).
std::optional<long double> integral(const nlohmann::json& value) {
  if (value.is_number_unsigned()) return static_cast<long double>(value.get<std::uint64_t>());
  if (value.is_number_integer()) return static_cast<long double>(value.get<std::int64_t>());
  const double number = value.get<double>();
  if (!std::isfinite(number) || number != std::floor(number)) return std::nullopt;
  return static_cast<long double>(number);
}

}  // namespace

JsonReader::JsonReader(const nlohmann::json& value, std::shared_ptr<const ReadSource> source, std::string path)
    : value_(&value), source_(std::move(source)), path_(std::move(path)) {}

JsonReader JsonReader::root(const nlohmann::json& value, const std::string& name) {
  return JsonReader(value, std::make_shared<ReadSource>(ReadSource{name}), "");
}

std::string JsonReader::field_path(std::string_view key) const {
  if (key.empty()) return path_;
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

void JsonReader::fail(std::string_view key, const std::string& what) const {
  const std::string where = field_path(key);
  throw InputError(source_->name, 0, where.empty() ? what : where + ": " + what);
}

void JsonReader::wrong_type(std::string_view key, const char* expected, const nlohmann::json& found) const {
  fail(key, fmt::format("expected {}, found {}", expected, type_word(found)));
}

const nlohmann::json* JsonReader::field(std::string_view key) const {
  if (!value_->is_object()) return nullptr;
  read_.emplace(key);
  const auto it = value_->find(key);
  if (it == value_->end() || it->is_null()) return nullptr;
  return &*it;
}

bool JsonReader::has(std::string_view key) const { return field(key) != nullptr; }

std::optional<double> JsonReader::number(std::string_view key) const {
  const auto* value = field(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number()) wrong_type(key, "a number", *value);
  const double number = value->get<double>();
  if (!std::isfinite(number)) fail(key, "not a finite number");
  return number;
}

std::optional<std::int64_t> JsonReader::integer(std::string_view key) const {
  const auto* value = field(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number()) wrong_type(key, "an integer", *value);
  const auto whole = integral(*value);
  if (!whole) fail(key, fmt::format("expected an integer, found {}", value->dump()));
  if (*whole > static_cast<long double>(std::numeric_limits<std::int64_t>::max()) ||
      *whole < static_cast<long double>(std::numeric_limits<std::int64_t>::min())) {
    fail(key, "integer out of range");
  }
  return static_cast<std::int64_t>(*whole);
}

std::optional<std::uint64_t> JsonReader::count(std::string_view key) const {
  const auto* value = field(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number()) wrong_type(key, "a non-negative integer", *value);
  const auto whole = integral(*value);
  if (!whole || *whole < 0) fail(key, fmt::format("expected a non-negative integer, found {}", value->dump()));
  if (*whole > static_cast<long double>(std::numeric_limits<std::uint64_t>::max())) fail(key, "integer out of range");
  if (value->is_number_unsigned()) return value->get<std::uint64_t>();
  return static_cast<std::uint64_t>(*whole);
}

std::optional<int> JsonReader::small_int(std::string_view key) const {
  const auto value = integer(key);
  if (!value) return std::nullopt;
  if (*value > std::numeric_limits<int>::max() || *value < std::numeric_limits<int>::min()) {
    fail(key, fmt::format("integer {} out of range", *value));
  }
  return static_cast<int>(*value);
}

std::optional<bool> JsonReader::boolean(std::string_view key) const {
  const auto* value = field(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_boolean()) wrong_type(key, "true or false", *value);
  return value->get<bool>();
}

std::optional<std::string> JsonReader::string(std::string_view key) const {
  const auto* value = field(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) wrong_type(key, "a string", *value);
  return value->get<std::string>();
}

std::string JsonReader::string_or(std::string_view key, std::string fallback) const {
  auto value = string(key);
  return value ? *value : std::move(fallback);
}

std::optional<std::string> JsonReader::text(std::string_view key) const {
  const auto* value = field(key);
  if (value == nullptr) return std::nullopt;
  if (value->is_string()) return value->get<std::string>();
  if (value->is_boolean()) return value->get<bool>() ? "true" : "false";
  if (value->is_number_unsigned()) return std::to_string(value->get<std::uint64_t>());
  if (value->is_number_integer()) return std::to_string(value->get<std::int64_t>());
  if (value->is_number()) return value->dump();
  wrong_type(key, "a string or number", *value);
}

std::optional<double> JsonReader::median(std::string_view key) const {
  const auto* value = field(key);
  if (value == nullptr) return std::nullopt;
  if (value->is_number()) return number(key);
  if (value->is_object()) return object(key).number("median");
  wrong_type(key, "a number or a {median, min, max} object", *value);
}

namespace {
template <typename T, typename Read>
Known<T> with_reason(const JsonReader& reader, std::string_view key, Read read) {
  Known<T> fact;
  if (auto value = read()) static_cast<std::optional<T>&>(fact) = std::move(*value);
  if (auto why = reader.string(std::string(key) + "_reason")) fact.reason = *why;
  return fact;
}
}  // namespace

Known<double> JsonReader::known_number(std::string_view key) const {
  return with_reason<double>(*this, key, [&] { return number(key); });
}
Known<std::int64_t> JsonReader::known_integer(std::string_view key) const {
  return with_reason<std::int64_t>(*this, key, [&] { return integer(key); });
}
Known<int> JsonReader::known_int(std::string_view key) const {
  return with_reason<int>(*this, key, [&] { return small_int(key); });
}
Known<bool> JsonReader::known_boolean(std::string_view key) const {
  return with_reason<bool>(*this, key, [&] { return boolean(key); });
}
Known<std::string> JsonReader::known_string(std::string_view key) const {
  return with_reason<std::string>(*this, key, [&] { return string(key); });
}
Known<std::vector<std::string>> JsonReader::known_strings(std::string_view key) const {
  return with_reason<std::vector<std::string>>(*this, key, [&]() -> std::optional<std::vector<std::string>> {
    if (!has(key)) return std::nullopt;
    return strings(key);
  });
}

JsonReader JsonReader::at(std::string_view key) const {
  const auto* value = field(key);
  return JsonReader(value == nullptr ? null_json() : *value, source_, field_path(key));
}

JsonReader JsonReader::object(std::string_view key) const {
  const auto* value = field(key);
  if (value == nullptr) return JsonReader(null_json(), source_, field_path(key));
  if (!value->is_object()) wrong_type(key, "an object", *value);
  return JsonReader(*value, source_, field_path(key));
}

std::vector<JsonReader> JsonReader::array(std::string_view key) const {
  const auto* value = field(key);
  if (value == nullptr) return {};
  if (!value->is_array()) wrong_type(key, "an array", *value);
  return JsonReader(*value, source_, field_path(key)).elements();
}

std::vector<JsonReader> JsonReader::elements() const {
  if (value_->is_null()) return {};
  if (!value_->is_array()) wrong_type("", "an array", *value_);
  std::vector<JsonReader> items;
  items.reserve(value_->size());
  for (std::size_t i = 0; i < value_->size(); ++i) {
    items.emplace_back((*value_)[i], source_, fmt::format("{}[{}]", path_, i));
  }
  return items;
}

std::vector<std::string> JsonReader::strings(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& item : array(key)) {
    if (!item.json().is_string()) item.wrong_type("", "a string", item.json());
    out.push_back(item.json().get<std::string>());
  }
  return out;
}

std::vector<std::vector<std::string>> JsonReader::string_rows(std::string_view key) const {
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : array(key)) {
    std::vector<std::string> cells;
    for (const auto& cell : row.elements()) {
      if (!cell.json().is_string()) cell.wrong_type("", "a string", cell.json());
      cells.push_back(cell.json().get<std::string>());
    }
    rows.push_back(std::move(cells));
  }
  return rows;
}

std::vector<double> JsonReader::numbers(std::string_view key) const {
  std::vector<double> out;
  for (const auto& item : array(key)) {
    if (!item.json().is_number() || !std::isfinite(item.json().get<double>())) {
      item.wrong_type("", "a finite number", item.json());
    }
    out.push_back(item.json().get<double>());
  }
  return out;
}

std::vector<std::int64_t> JsonReader::integers(std::string_view key) const {
  std::vector<std::int64_t> out;
  for (const auto& item : array(key)) {
    const auto whole = item.json().is_number() ? integral(item.json()) : std::nullopt;
    if (!whole) item.wrong_type("", "an integer", item.json());
    out.push_back(static_cast<std::int64_t>(*whole));
  }
  return out;
}

std::map<std::string, std::string> JsonReader::string_map(std::string_view key) const {
  std::map<std::string, std::string> out;
  const JsonReader map = object(key);
  if (!map.is_object()) return out;
  for (const auto& [name, value] : map.json().items()) {
    if (auto text = map.text(name)) out[name] = *text;
  }
  return out;
}

nlohmann::json JsonReader::raw(std::string_view key) const {
  const auto* value = field(key);
  return value == nullptr ? nlohmann::json(nullptr) : *value;
}

nlohmann::json JsonReader::extras() const {
  nlohmann::json out = nlohmann::json::object();
  if (!value_->is_object()) return out;
  for (const auto& [key, value] : value_->items()) {
    if (read_.find(key) == read_.end()) out[key] = value;
  }
  return out;
}

void JsonReader::skip(std::initializer_list<std::string_view> keys) const {
  for (auto key : keys) read_.emplace(key);
}

nlohmann::json string_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

const nlohmann::json* json_field(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

nlohmann::json with_extras(nlohmann::json known, const nlohmann::json& extras) {
  if (!extras.is_object() || extras.empty()) return known;
  nlohmann::json out = extras;
  for (auto& [key, value] : known.items()) out[key] = std::move(value);
  return out;
}

}  // namespace linkscope::model
