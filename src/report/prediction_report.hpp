#pragma once
#include <string>

#include "report/report_data.hpp"
#include "report/report_tables.hpp"

// Measured busbw beside what NCCL's own tuning model predicts for it (model.tuning), per collective and size: the
// table of the Markdown/HTML reports and the text summary, and the chart of the HTML report.
namespace linkscope::report {

inline constexpr const char* kPredictionSvg = "prediction.svg";

// op, size, the model's algorithm/protocol/channels, what NCCL used (its TUNING log), predicted and measured busbw,
// measured / predicted. Sizes from prediction_compare_min_bytes up when `large_only`.
Table prediction_table(const ReportData& data, bool large_only = false);
// Per measured op: the measured curve and the predicted one over the same sizes. Empty without predictions.
std::string prediction_svg(const ReportData& data);
// The table as aligned text under a heading line; empty without predictions.
std::string prediction_text(const ReportData& data);

}  // namespace linkscope::report
