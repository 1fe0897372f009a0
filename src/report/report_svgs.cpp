#include "report/report_svgs.hpp"

#include <fmt/format.h>

#include "core/text.hpp"
#include "report/cluster_tables.hpp"
#include "report/fleet_section.hpp"
#include "report/prediction_report.hpp"
#include "report/report_format.hpp"
#include "report/svg_bar_chart.hpp"
#include "report/svg_heatmap.hpp"
#include "report/svg_line_chart.hpp"
#include "report/svg_timeline.hpp"
#include "report/svg_topology.hpp"

namespace linkscope::report {

std::string p2p_heatmap_file(const std::string& method) { return "p2p-heatmap-" + slug(method) + ".svg"; }
std::string p2p_curve_file(const std::string& method) { return "p2p-sizes-" + slug(method) + ".svg"; }

std::string heatmap_svg(const PairMatrix& matrix) {
  Heatmap map;
  map.id = "heatmap-" + slug(matrix.method);
  map.title = fmt::format("{} copy bandwidth at {} (GB/s)", method_label(matrix.method),
                          format_bytes(matrix.bytes));
  for (const int gpu : matrix.gpus) map.labels.push_back(fmt::format("GPU{}", gpu));
  for (std::size_t r = 0; r < matrix.gpus.size(); ++r) {
    std::vector<std::optional<double>> row;
    for (std::size_t c = 0; c < matrix.gpus.size(); ++c) row.push_back(matrix.gbps(r, c));
    map.values.push_back(std::move(row));
  }
  return render_heatmap(map);
}

std::string copy_curve_svg(const ReportData& data, const std::string& method, const std::vector<Series>& series) {
  LineChart chart;
  chart.id = "sizes-" + slug(method);
  chart.title = method_label(method) + " copy bandwidth against size";
  chart.y_label = "GB/s";
  chart.series = summarize_series(series, 8, "directed pairs");
  if (const auto rate = data.evidence.slowest_link_rate()) {
    chart.references.push_back({"link rate " + format_gbps(rate->gbps), rate->gbps});
  }
  return render_line_chart(chart);
}

std::string collectives_svg(const ReportData& data) {
  LineChart chart;
  chart.id = "collectives";
  chart.title = "NCCL busbw against size (out-of-place)";
  chart.y_label = "GB/s";
  chart.series = data.busbw_curves;
  if (const auto rate = data.evidence.slowest_link_rate()) {
    chart.references.push_back({"link rate " + format_gbps(rate->gbps), rate->gbps});
  }
  return render_line_chart(chart);
}

std::string ladder_svg(const ReportData& data) {
  BarChart chart;
  chart.id = "ladder";
  chart.title = "Ladder: the same collective with paths taken away (busbw)";
  for (const auto& layer : data.evidence.ladder()) {
    Bar bar;
    const std::string transport = layer.transport.value_or("");
    bar.label = transport.empty() ? layer.name : layer.name + " (" + transport + ")";
    if (layer.status == "ok") bar.value = layer.busbw_gbps;
    if (layer.status != "ok") {
      const std::string reason = layer.reason.value_or("");
      bar.note = layer.status + (reason.empty() ? "" : ": " + reason);
    } else if (layer.slowdown && *layer.slowdown > 1.0) {
      bar.note = format_factor(*layer.slowdown) + " slower";
    }
    chart.bars.push_back(bar);
  }
  for (const auto& layer : data.evidence.ladder()) {
    if (layer.peak.peak_gbps) {
      chart.reference = layer.peak.peak_gbps;
      chart.reference_label = "link rate " + format_gbps(*layer.peak.peak_gbps);
      break;
    }
  }
  return render_bar_chart(chart);
}

std::string timeline_svg(const ReportData& data) {
  const auto& telemetry = data.run.measurements.telemetry;
  return telemetry ? render_timeline(*telemetry) : std::string();
}

std::vector<NamedSvg> report_svgs(const ReportData& data) {
  const model::Run& run = data.run;
  std::vector<NamedSvg> svgs;
  auto add = [&](std::string file, std::string svg) {
    if (!svg.empty()) svgs.push_back({std::move(file), std::move(svg)});
  };
  add(kTopologySvg, render_topology_svg(run));
  add(kCrossHostSvg, cross_host_heatmap_svg(run));
  if (run.fleet) add(kFleetSvg, fleet_svg(*run.fleet));
  for (const auto& matrix : data.matrices) add(p2p_heatmap_file(matrix.method), heatmap_svg(matrix));
  for (const auto& [method, series] : data.copy_curves) {
    bool multi_size = false;
    for (const auto& s : series) multi_size = multi_size || s.points.size() > 1;
    if (multi_size) add(p2p_curve_file(method), copy_curve_svg(data, method, series));
  }
  add(kCollectivesSvg, collectives_svg(data));
  add(kPredictionSvg, prediction_svg(data));
  add(kLadderSvg, ladder_svg(data));
  add(kTimelineSvg, timeline_svg(data));
  return svgs;
}

}  // namespace linkscope::report
