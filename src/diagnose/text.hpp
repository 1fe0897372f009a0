#pragma once
#include <cstdint>
#include <string>
#include <vector>

// Number spelling shared by findings, hypotheses and reports, so a value reads the same everywhere.
namespace linkscope::diagnose {

// "393.8 GB/s" (one decimal; two below 10; three below 0.1).
std::string format_gbps(double gbps);
// Bare number with the same precision rule: "393.8".
std::string format_number(double value);
// A factor without trailing zeros: "2x", "1.22x", "8192x".
std::string format_factor(double value);
// "82%" of a share (0.824 -> "82%"); "0.5%" below 10%.
std::string format_percent(double share);
// 1024-based: "8 B", "64 KiB", "512 MiB", "1.5 GiB".
std::string format_bytes(std::uint64_t bytes);
// "17.0 us", "829 ns", "3.27 ms".
std::string format_time_us(double microseconds);
// Median of a copy (empty -> 0).
double median_of(std::vector<double> values);

}  // namespace linkscope::diagnose
