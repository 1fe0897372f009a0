#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/report_data.hpp"

// The four numbers people confuse, side by side per GPU pair type, each labelled with what it is:
// the link status rate (hardware), NCCL's model weight (a search weight), a measured P2P copy and NCCL's busbw.
namespace linkscope::report {

struct FourNumbersRow {
  std::string pair_type;  // "NV18", "PIX", "NVL" (model only)
  std::vector<std::pair<int, int>> pairs;
  std::optional<double> link_rate_gbps;
  std::string link_rate_what;  // "18 x 26.562 GB/s NVLink (NVML link status), per direction"
  std::optional<double> model_weight;
  std::string model_weight_what;  // "NVL path weight (18 x 20.6), NCCL's search weight, not a bandwidth"
  std::optional<double> copy_gbps;
  std::string copy_what;  // "CE copy at 512 MiB, median of 2 directed pairs"
  std::optional<double> busbw_gbps;
  std::string busbw_what;  // "all_reduce at 8 GiB over 2 ranks (every GPU)"
};

std::vector<FourNumbersRow> four_numbers(const ReportData& data);

// "link 478.1 GB/s{sep}NCCL weight 370.8{sep}P2P copy 393.8 GB/s (82%){sep}busbw 344.7 GB/s (72%)": a row's key
// numbers on one line, shares of the link rate in parentheses.
std::string key_numbers_text(const FourNumbersRow& row, const std::string& separator);

}  // namespace linkscope::report
