#pragma once
// What two widely deployed health checks read from nccl-tests' text, reimplemented from their published behaviour
// so that tests can hold linkscope's personalities to the same verdicts as nccl-tests:
// - DCGM's nccl_tests diagnostic plugin (nvvs/plugin_src/nccl_tests): fails on a non-zero exit code, on a
//   "# Out of bounds values" or "# Avg bus bandwidth" line that contains FAILED, and when either line is missing.
// - Azure NHC's check_nccl_allreduce (customTests/azure_nccl_allreduce.nhc): runs one size (-b S -e S), fails on a
//   non-zero exit code, on any line containing FAILED before the first line containing "bandwidth", and when the
//   sixth whitespace-separated field of that line, as a number, is below the expected bandwidth.
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace linkscope::test {

struct HealthVerdict {
  bool pass = false;
  std::string reason;  // why it failed
};

inline HealthVerdict dcgm_nccl_tests_verdict(const std::string& output, int exit_code) {
  bool oob = false, bw = false;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("# Out of bounds values") != std::string::npos) {
      oob = true;
      if (line.find("FAILED") != std::string::npos) return {false, line};
    } else if (line.find("# Avg bus bandwidth") != std::string::npos) {
      bw = true;
      if (line.find("FAILED") != std::string::npos) return {false, line};
    }
  }
  if (exit_code != 0) return {false, "exit code " + std::to_string(exit_code)};
  if (!oob || !bw) return {false, "Output missing expected result lines"};
  return {true, ""};
}

// The bandwidth NHC reads: field 6 of the first line containing "bandwidth"; nothing when there is none.
inline std::optional<double> nhc_average_bus_bandwidth(const std::string& output) {
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("bandwidth") == std::string::npos) continue;
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string w; words >> w;) fields.push_back(w);
    if (fields.size() < 6) return std::nullopt;
    char* end = nullptr;
    const double value = std::strtod(fields[5].c_str(), &end);
    if (end == fields[5].c_str()) return std::nullopt;
    return value;
  }
  return std::nullopt;
}

inline HealthVerdict nhc_nccl_allreduce_verdict(const std::string& output, int exit_code, double expected_gbps) {
  if (exit_code != 0) return {false, "nccl_allreduce returned error code " + std::to_string(exit_code)};
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("FAILED") != std::string::npos) return {false, "Out of bounds values failed"};
    if (line.find("bandwidth") != std::string::npos) break;
  }
  const auto measured = nhc_average_bus_bandwidth(output);
  if (!measured) return {false, "no bandwidth line"};
  if (*measured < expected_gbps) return {false, "BUS BW below expected"};
  return {true, ""};
}

// The out-of-place busbw column (the 8th field) of the data row whose size column is `size_bytes`.
inline std::optional<double> busbw_at_size(const std::string& output, unsigned long long size_bytes) {
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string w; words >> w;) fields.push_back(w);
    if (fields.size() < 8 || std::strtoull(fields[0].c_str(), nullptr, 10) != size_bytes) continue;
    return std::strtod(fields[7].c_str(), nullptr);
  }
  return std::nullopt;
}

}  // namespace linkscope::test
