#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

// Text helpers and the one spelling of numbers: findings, hypotheses, tables and reports all format a value
// through these, so 393.8 GB/s reads the same everywhere.
namespace linkscope {

std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::string lower(std::string text);
// `text` without leading and trailing white space.
std::string trim_spaces(std::string_view text);
// Splits at `separator`, trimming each item; empty items are kept (CUDA_VISIBLE_DEVICES gives them meaning).
std::vector<std::string> split_list(std::string_view text, char separator);
// Integers with runs collapsed, sorted and unique: ({0,1,2,3,8}, ",") -> "0-3,8"; ({0,1,5}, ", ") -> "0-1, 5".
std::string format_ranges(std::vector<int> values, std::string_view separator);
// MPI ranks in words: "rank 3", "ranks 0-7", "ranks 0-3, 8", "no rank".
std::string rank_list(std::vector<int> ranks);
// Removes spaces at the ends of lines (padded table columns), keeping golden files clean.
std::string without_trailing_spaces(const std::string& text);

// The rounding rule: one decimal from 10 up, two from 0.1, three below ("393.8", "5.67", "0.052").
std::string format_number(double value);
// format_number + " GB/s".
std::string format_gbps(double gbps);
// A factor without trailing zeros: "2x", "1.22x", "8192x".
std::string format_factor(double value);
// "82%" of a share (0.824 -> "82%"); one decimal below 10% ("0.5%").
std::string format_percent(double share);
// 1024-based: "8 B", "64 KiB", "512 MiB", "1.5 GiB".
std::string format_bytes(std::uint64_t bytes);
// "17.0 us", "829 ns", "3.27 ms".
std::string format_time_us(double microseconds);
// Median of a copy (empty -> 0).
double median_of(std::vector<double> values);

}  // namespace linkscope
