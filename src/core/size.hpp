#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace linkscope {

// Sizes as nccl-tests spells them: "8", "64K", "1M", "8G", "1.5G"; K/M/G/T are powers of 1024.
// A trailing "B" or "iB" is accepted ("64KiB", "1MB" is also 1024-based, as in nccl-tests).
// Throws UsageError naming `what` and the text for anything else (empty, negative, fractional bytes,
// unknown suffix, overflow).
std::uint64_t parse_size(std::string_view text, std::string_view what = "size");

// Short 1024-based spelling for tables: 8 -> "8", 65536 -> "64K", 1610612736 -> "1.5G".
std::string format_size(std::uint64_t bytes);

// Bandwidth in GB/s where GB is 1e9 bytes (nccl-tests and nvbandwidth convention).
inline double gigabytes_per_second(std::uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
}

}  // namespace linkscope
