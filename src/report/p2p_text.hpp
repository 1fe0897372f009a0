#pragma once
#include <string>

#include "plan/p2p_result.hpp"

namespace linkscope::report {

// The terminal report of `linkscope p2p`: per size a bandwidth matrix (rows = source, columns = destination,
// N/A where there is no peer access, reasons listed once), per pair a curve table, asymmetry per size, latency
// and host copies. Small copies are labelled latency-bound instead of being compared as bandwidth.
// With several SM kernel shapes (a tuning run) the SM results are one table per size, shape by pair.
std::string render_p2p_text(const plan::P2pResults& results);

// Number formatting shared by the p2p and pattern reports: GB/s with 2 decimals below 10, else 1.
std::string format_gbps(double gbps);
std::string format_us(double us);
std::string format_percent(double fraction);
// Removes spaces at the ends of lines (padded table columns), keeping golden files clean.
std::string without_trailing_spaces(const std::string& text);

}  // namespace linkscope::report
