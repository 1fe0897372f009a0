#pragma once
#include <string>

#include "model/run.hpp"
#include "report/report_tables.hpp"

// The report's Fleet section (a run judged against a fleet baseline, `--baseline`): read from the Run's `fleet`
// alone, shared by the text summary, `compare`, Markdown and HTML.
namespace linkscope::report {

bool has_fleet(const model::Run& run);

// Every number judged, the ones outside the fleet first: subject, metric, value, the fleet's median, MAD, p5-p95,
// count, relative difference, robust z.
Table fleet_table(const model::FleetComparison& fleet);

// Plain-text lines: the machine type, how many numbers were judged, and each one outside the fleet.
std::string render_fleet_text(const model::FleetComparison& fleet);

// Each number as a dot on its fleet's spread, relative to the fleet median (the band p5-p95, the median at 100%),
// outside ones in red and first; empty without a judged number. File name in the report directory.
inline constexpr const char* kFleetSvg = "fleet.svg";
std::string fleet_svg(const model::FleetComparison& fleet);

}  // namespace linkscope::report
