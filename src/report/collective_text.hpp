#pragma once
#include <string>
#include <vector>

#include "model/collectives.hpp"

// linkscope's own text table for `linkscope coll`: per size the distribution of per-iteration times
// (median, min, max, CV) with algbw/busbw from the median, #wrong and the number of samples.
namespace linkscope::report {

// What the rows of a series mean: op, type, reduction, ranks, how times were taken.
std::string render_collective_header(const model::CollectiveSeries& series, const std::string& sampling);
std::string render_collective_row(const model::CollectivePoint& point);

struct CollectiveSummary {
  double wall_s = 0;
  std::string transport;  // from the runtime layer; empty when not recorded
};
std::string render_collective_footer(const std::vector<model::CollectiveSeries>& series, const CollectiveSummary& summary);

}  // namespace linkscope::report
