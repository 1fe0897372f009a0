#pragma once
#include <string>
#include <vector>

#include "model/coll_sampling.hpp"
#include "model/collectives.hpp"
#include "model/run.hpp"
#include "model/runtime.hpp"

// linkscope's own text table for `linkscope coll`: per size the distribution of per-iteration times
// (median, min, max, CV) with algbw/busbw from the median, #wrong and the number of samples. The live command
// prints it piece by piece as sizes finish (a header when a series starts, kCollectiveSeriesSeparator before
// every series but the first, a row per point, the footer at the end); render_coll_text prints the same bytes
// from the saved run.
namespace linkscope::report {

inline constexpr const char* kCollectiveSeriesSeparator = "#\n";

// "adaptive: until the median's 95% CI is within 5% or 2 s per size", "20 timed iterations per size".
std::string render_sampling_text(const model::CollSampling& sampling);

// What the rows of a series mean: op, type, reduction, ranks, how times were taken.
std::string render_collective_header(const model::CollectiveSeries& series, const std::string& sampling);
std::string render_collective_row(const model::CollectivePoint& point);

struct CollectiveSummary {
  double wall_s = 0;
  std::string transport;  // from the runtime layer; empty when not recorded
};
std::string render_collective_footer(const std::vector<model::CollectiveSeries>& series, const CollectiveSummary& summary);

// "P2P/CUMEM/read (24 connections), SHM (2 connections)"; "none (one rank)" when one rank made no connection.
std::string transport_summary_text(const model::NcclRuntimeInfo& info);
// The footer's facts from a coll run: its wall time (config.measured_seconds) and the transports of its recorded
// "coll <op>" runtime run.
CollectiveSummary collective_summary(const model::Run& run);

// The whole table of a coll run (measurements.collectives, config.coll, runtime), as the live command printed it.
std::string render_coll_text(const model::Run& run);

}  // namespace linkscope::report
