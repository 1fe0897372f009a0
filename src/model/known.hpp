#pragma once
#include <optional>
#include <string>
#include <utility>

namespace linkscope::model {

// A fact that may be unknown: a value, or the reason it could not be read. It is a std::optional (so `*fact`,
// `fact.has_value()`, `fact.value_or(x)` and comparisons work) with the reason beside it. The Run document shows
// an unknown fact as null with a "<name>_reason" field beside it, never as 0.
template <typename T>
struct Known : std::optional<T> {
  std::string reason;  // why there is no value; empty when the value is known

  Known() = default;
  Known(std::nullopt_t) {}  // NOLINT: reads as "no value"
  Known(T value) : std::optional<T>(std::move(value)) {}  // NOLINT: a value converts implicitly
  Known(std::optional<T> value, std::string why) : std::optional<T>(std::move(value)), reason(std::move(why)) {}

  static Known known(T value) { return Known(std::move(value)); }
  static Known unknown(std::string why) { return Known(std::nullopt, std::move(why)); }
  bool has() const { return this->has_value(); }
  const std::optional<T>& as_optional() const { return *this; }
};

// Two facts are equal when their values are (the reasons do not matter); without these, std::optional's mixed
// comparisons make `a == b` ambiguous for the derived type.
template <typename T>
bool operator==(const Known<T>& a, const Known<T>& b) {
  return a.as_optional() == b.as_optional();
}
template <typename T>
bool operator!=(const Known<T>& a, const Known<T>& b) {
  return !(a == b);
}

}  // namespace linkscope::model
