#pragma once
#include <string>
#include <vector>

#include "report/nccl_tests_text.hpp"

// nccl-tests 2.19.6's -J document (its JSON_FILE_VERSION 3), with its field names, order and value spellings
// (booleans as the strings "true"/"false", doubles with six decimals, the root as its padded text), so that
// nccl-tests' tools/analyze_perf_json.py and other readers of that file read linkscope's unchanged. Pure
// formatting from the same rows the text renderer prints.
namespace linkscope::report {

inline constexpr int kNcclTestsJsonVersion = 3;

struct NcclTestsJsonDocument {
  std::string start_time, end_time;  // nccl_tests_now() when the file was opened and closed
  std::vector<std::string> args;     // the command line as typed
  std::vector<std::string> env;      // "NAME=value", the whole environment (nccl-tests records it all)
  NcclTestsPreamble preamble;        // config and devices (nccl_library_code is "nccl_version")
  bool cputime = false;              // -C: cells are "cpu_time" instead of "time"
  std::vector<NcclTestsRow> rows;    // results, in the order printed
  NcclTestsFooter footer;            // out_of_bounds, average_bus_bandwidth
  std::vector<std::string> errors;   // NCCL's last error (nccl-tests writes one entry, empty when none)
};

std::string render_nccl_tests_json(const NcclTestsJsonDocument& document);

// nccl-tests' rule for -J FILE: FILE when it does not exist yet, else FILE.0, FILE.1 ... (never overwritten).
// `exists` answers for a candidate path.
template <typename Exists>
std::string nccl_tests_json_path(const std::string& requested, Exists&& exists) {
  std::string path = requested;
  for (int n = 0; exists(path); ++n) path = requested + "." + std::to_string(n);
  return path;
}

}  // namespace linkscope::report
