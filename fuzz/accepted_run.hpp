#pragma once
// The start both run-JSON fuzzers share: the input as a run file's text through the one reader. A linkscope::Error
// is the reader refusing the input with a message, which is what it is for: nothing is left to try on it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "model/run_file.hpp"

inline std::optional<linkscope::model::Run> accepted_run(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    return linkscope::model::parse_run_text(text, "fuzz.json");
  } catch (const linkscope::Error&) {
    return std::nullopt;
  }
}
