#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/known.hpp"

// Reading the Run document into the typed model (src/model). The reader is tolerant where documents legitimately
// differ and strict where they are wrong:
// - a field that is missing or null reads as "absent" (an older schema, a partial run, a value not measured);
// - a field present with the wrong type (a string bandwidth, `points: "none"`, `gpus: 5`) is an InputError naming
//   the file and the field ("run.json: measurements.p2p.points[3].bandwidth_gbps: expected a number, found a
//   string"), exit 2: the file is damaged, and guessing would render or judge numbers nobody measured;
// - fields the model does not know are kept (`extras()`), so a run written by a newer linkscope keeps them when it
//   is re-written.
namespace linkscope::model {

// Where the document came from: named in every error.
struct ReadSource {
  std::string name;  // file name, "child step p2p", ...
};

class JsonReader {
 public:
  JsonReader(const nlohmann::json& value, std::shared_ptr<const ReadSource> source, std::string path = "");
  // A reader for a document read from `name`.
  static JsonReader root(const nlohmann::json& value, const std::string& name);

  const nlohmann::json& json() const { return *value_; }
  const std::string& path() const { return path_; }
  bool is_object() const { return value_->is_object(); }
  bool is_null() const { return value_->is_null(); }
  // Present and not null.
  bool has(std::string_view key) const;

  std::optional<double> number(std::string_view key) const;
  std::optional<std::int64_t> integer(std::string_view key) const;
  std::optional<std::uint64_t> count(std::string_view key) const;  // a non-negative integer
  std::optional<int> small_int(std::string_view key) const;        // fits an int
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<std::string> string(std::string_view key) const;
  std::string string_or(std::string_view key, std::string fallback = "") const;
  // Strings as they are; numbers and booleans spelled out (an env value written as 1 reads "1").
  std::optional<std::string> text(std::string_view key) const;
  // A number, or a statistic object's "median" ({"median": 393.8, ...}).
  std::optional<double> median(std::string_view key) const;

  // `key` with its "<key>_reason" sibling.
  Known<double> known_number(std::string_view key) const;
  Known<std::int64_t> known_integer(std::string_view key) const;
  Known<int> known_int(std::string_view key) const;
  Known<bool> known_boolean(std::string_view key) const;
  Known<std::string> known_string(std::string_view key) const;
  Known<std::vector<std::string>> known_strings(std::string_view key) const;

  // A reader of the field whatever its type (null when missing).
  JsonReader at(std::string_view key) const;
  // An object field (missing or null: an empty object reader); another type is an error.
  JsonReader object(std::string_view key) const;
  // An array field's elements (missing or null: none); another type is an error.
  std::vector<JsonReader> array(std::string_view key) const;
  // The elements of this reader's own value, which must be an array.
  std::vector<JsonReader> elements() const;
  // Arrays of scalars.
  std::vector<std::string> strings(std::string_view key) const;
  // An array of arrays of strings (a matrix of labels).
  std::vector<std::vector<std::string>> string_rows(std::string_view key) const;
  std::vector<double> numbers(std::string_view key) const;
  std::vector<std::int64_t> integers(std::string_view key) const;
  // {"NAME": "value", ...}; numbers and booleans spelled out.
  std::map<std::string, std::string> string_map(std::string_view key) const;
  // The field as it is (null when missing), for parts the model keeps as JSON.
  nlohmann::json raw(std::string_view key) const;

  // The fields of this object that were never read: kept so that re-writing the document loses nothing.
  nlohmann::json extras() const;
  // Marks fields as read without reading them (fields the model recomputes).
  void skip(std::initializer_list<std::string_view> keys) const;

  [[noreturn]] void fail(std::string_view key, const std::string& what) const;

 private:
  const nlohmann::json* field(std::string_view key) const;
  std::string field_path(std::string_view key) const;
  [[noreturn]] void wrong_type(std::string_view key, const char* expected, const nlohmann::json& found) const;

  const nlohmann::json* value_;
  std::shared_ptr<const ReadSource> source_;
  std::string path_;
  mutable std::set<std::string, std::less<>> read_;
};

// A member of a JSON object kept as JSON (extras, engine configs); nullptr when `object` is no object or lacks it.
const nlohmann::json* json_field(const nlohmann::json& object, std::string_view key);

// Writing helpers: `key` = value, or null with "<key>_reason".
template <typename T>
void put_known(nlohmann::json& object, const std::string& key, const Known<T>& fact) {
  if (fact.has_value()) {
    object[key] = *fact;
  } else {
    object[key] = nullptr;
    object[key + "_reason"] = fact.reason.empty() ? "not read" : fact.reason;
  }
}
// The same for a fact added after documents without it were saved: absent when it was never read (neither a
// value nor a reason), so such a document is written back as it was.
template <typename T>
void put_known_if_read(nlohmann::json& object, const std::string& key, const Known<T>& fact) {
  if (fact.has_value() || !fact.reason.empty()) put_known(object, key, fact);
}
template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}
// A string that is empty when absent: null in the document.
nlohmann::json string_or_null(const std::string& text);
// An object being written: `known` fields over the `extras` a reader kept (known fields win).
nlohmann::json with_extras(nlohmann::json known, const nlohmann::json& extras);

}  // namespace linkscope::model
