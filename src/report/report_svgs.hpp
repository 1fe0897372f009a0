#pragma once
#include <string>
#include <vector>

#include "report/report_data.hpp"

// Every chart of a report, built from ReportData: inlined by report.html and written as files beside report.md.
namespace linkscope::report {

inline constexpr const char* kTopologySvg = "topology.svg";
inline constexpr const char* kCollectivesSvg = "collectives.svg";
inline constexpr const char* kLadderSvg = "ladder.svg";
inline constexpr const char* kTimelineSvg = "timeline.svg";
std::string p2p_heatmap_file(const std::string& method);  // "p2p-heatmap-ce.svg"
std::string p2p_curve_file(const std::string& method);    // "p2p-sizes-ce.svg"

std::string heatmap_svg(const PairMatrix& matrix);
std::string copy_curve_svg(const ReportData& data, const std::string& method, const std::vector<Series>& series);
std::string collectives_svg(const ReportData& data);
std::string ladder_svg(const ReportData& data);
std::string timeline_svg(const ReportData& data);  // empty without measurements.telemetry

struct NamedSvg {
  std::string file;
  std::string svg;
};
// All non-empty charts with their file names.
std::vector<NamedSvg> report_svgs(const ReportData& data);

}  // namespace linkscope::report
