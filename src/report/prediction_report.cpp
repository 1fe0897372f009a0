#include "report/prediction_report.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/text.hpp"
#include "core/text_table.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/prediction_match.hpp"
#include "report/svg_line_chart.hpp"

namespace linkscope::report {

namespace {

// What NCCL launched for (op, size) in the runs the prediction is for: "Ring/Simple on 24 channels", "" when its
// log did not say (NCCL_DEBUG set by the user, an NCCL without TUNING lines, a saved run from before 1.3).
std::string used_text(const diagnose::Context& context, const std::string& op, std::uint64_t bytes) {
  std::vector<std::string> used;
  for (const model::RuntimeRun* run : diagnose::predicted_runtime_runs(context)) {
    for (const model::NcclTuningCall* call : model::tuning_calls(run->info, op, bytes)) {
      std::string text = diagnose::choice_text(call->algorithm, call->protocol, call->channels());
      if (std::find(used.begin(), used.end(), text) == used.end()) used.push_back(std::move(text));
    }
  }
  return join(used, "; ");
}

}  // namespace

Table prediction_table(const ReportData& data, bool large_only) {
  Table table{{"op", "size", "NCCL's model", "NCCL used", "predicted busbw", "measured busbw", "measured / predicted"},
              {}};
  const auto points = diagnose::predicted_points(data.evidence);
  if (points.empty()) return table;
  const diagnose::Context context(data.run);
  const auto min_bytes =
      static_cast<std::uint64_t>(diagnose::threshold(diagnose::Threshold::kPredictionCompareMinBytes));
  const double warn = diagnose::threshold(diagnose::Threshold::kBusbwWarnShareOfPrediction);
  for (const auto& p : points) {
    const std::uint64_t bytes = p.measured.point->bytes;
    if (large_only && bytes < min_bytes) continue;
    const double predicted = *p.predicted->busbw_gbps;
    const double measured = p.measured.busbw();
    const std::string used = used_text(context, p.measured.op(), bytes);
    Cell ratio = number_cell(predicted > 0 ? format_percent(measured / predicted) : "n/a",
                             bytes < min_bytes ? "latency: not judged" : "");
    if (predicted > 0 && bytes >= min_bytes && measured < warn * predicted) ratio.css_class = "sev-warning";
    table.rows.push_back({text_cell(p.measured.op()), number_cell(format_bytes(bytes)),
                          text_cell(diagnose::choice_text(p.predicted->algorithm.value_or("?"),
                                                          p.predicted->protocol.value_or("?"), p.predicted->channels),
                                    fmt::format("{:.1f} us", p.predicted->time_us.value_or(0))),
                          text_cell(used.empty() ? "not recorded" : used), number_cell(format_gbps(predicted)),
                          number_cell(format_gbps(measured)), ratio});
  }
  return table;
}

std::string prediction_svg(const ReportData& data) {
  std::map<std::string, std::pair<Series, Series>> by_op;  // op -> (measured, predicted)
  std::vector<std::string> order;
  for (const auto& p : diagnose::predicted_points(data.evidence)) {
    const std::string op = p.measured.op();
    if (!by_op.count(op)) order.push_back(op);
    auto& [measured, predicted] = by_op[op];
    measured.name = op + " measured";
    predicted.name = op + " NCCL model";
    measured.points.push_back({p.measured.point->bytes, p.measured.busbw()});
    predicted.points.push_back({p.measured.point->bytes, *p.predicted->busbw_gbps});
  }
  LineChart chart;
  chart.id = "prediction";
  chart.title = "busbw measured and predicted by NCCL's tuning model";
  chart.y_label = "GB/s";
  for (const auto& op : order) {
    auto& [measured, predicted] = by_op[op];
    for (Series* s : {&measured, &predicted}) {
      std::sort(s->points.begin(), s->points.end(),
                [](const SeriesPoint& a, const SeriesPoint& b) { return a.bytes < b.bytes; });
      chart.series.push_back(*s);
    }
  }
  return render_line_chart(chart);
}

std::string prediction_text(const ReportData& data) {
  const Table table = prediction_table(data, true);
  if (table.empty()) return "";
  std::vector<std::vector<std::string>> rows{table.header};
  for (const auto& row : table.rows) {
    std::vector<std::string> line;
    for (const auto& cell : row) line.push_back(cell.text);
    rows.push_back(std::move(line));
  }
  return fmt::format("\nMeasured vs NCCL's model (busbw, sizes from {}):\n",
                     format_bytes(static_cast<std::uint64_t>(
                         diagnose::threshold(diagnose::Threshold::kPredictionCompareMinBytes)))) +
         aligned_table(rows, "  ");
}

}  // namespace linkscope::report
