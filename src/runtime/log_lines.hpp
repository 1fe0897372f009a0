#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

// The one line reader of every NCCL log parser. NCCL writes each line from a 1 KiB buffer (debug.cc), so a longer
// line is not NCCL's: it is skipped whole, never handed to a regex (std::regex recurses once per character and a
// 40 KB line overflowed the stack). A log past the size cap is read up to the cap. Numbers go through checked
// conversions that say "no number" where std::stoi would throw.
namespace linkscope::runtime {

// NCCL's 1023 characters plus what launchers put before a line ("0: ", "[1,0]<stdout>:"), with room to spare.
inline constexpr std::size_t kMaxLogLineBytes = 4096;
// More than any NCCL_DEBUG=INFO log of one job (a TUNING line per call of a long sweep stays well below).
inline constexpr std::size_t kMaxLogBytes = std::size_t{256} << 20;

struct LogLineLimits {
  std::size_t max_line_bytes = kMaxLogLineBytes;
  std::size_t max_total_bytes = kMaxLogBytes;
};

struct LogLineCounts {
  std::size_t lines = 0;          // lines handed to the callback
  std::size_t skipped_long = 0;   // lines over max_line_bytes
  bool truncated = false;         // the text went past max_total_bytes
};

// Calls `line` for each line of `text` ("\n" separated; a trailing "\r" removed) within `limits`.
LogLineCounts for_each_log_line(std::string_view text, const std::function<void(std::string_view)>& line,
                                LogLineLimits limits = {});

// Decimal digits (an optional leading '-' for the signed forms) filling `digits` exactly, within the type's range;
// nothing otherwise (empty, other characters, out of range).
std::optional<int> parse_log_int(std::string_view digits);
std::optional<std::uint64_t> parse_log_u64(std::string_view digits);
// A decimal number as NCCL prints it with %f ("370.8", "30.000000"); nothing for anything else or non-finite.
std::optional<double> parse_log_double(std::string_view text);

}  // namespace linkscope::runtime
