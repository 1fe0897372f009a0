#pragma once
#include <optional>
#include <string>
#include <utility>

namespace linkscope::discover {

// A hardware fact that may be unknown: a value, or the reason it could not be read.
// The Run document shows such a fact as null with a "<name>_reason" beside it, never as 0.
template <typename T>
struct Fact {
  std::optional<T> value;
  std::string reason;  // why `value` is empty; empty when the value is known

  static Fact known(T v) {
    Fact fact;
    fact.value = std::move(v);
    return fact;
  }
  static Fact unknown(std::string why) {
    Fact fact;
    fact.reason = std::move(why);
    return fact;
  }
  bool has() const { return value.has_value(); }
  const T& operator*() const { return *value; }
  const T* operator->() const { return &*value; }
  // The value, or `fallback` when unknown (for decisions, never for display).
  T value_or(T fallback) const { return value.value_or(std::move(fallback)); }
};

}  // namespace linkscope::discover
