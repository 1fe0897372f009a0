#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/run.hpp"
#include "diagnose/evidence.hpp"
#include "diagnose/finding.hpp"

// What every report format shows, read once from a RunDocument: renderers (text, Markdown, HTML) format these
// structs and never look at measurements themselves. Nothing here measures.
namespace linkscope::report {

struct MachineSummary {
  std::string host, started_at, tool_version, subcommand, command_line;
  std::string gpu_description;  // "2 x NVIDIA H200" or "8 GPUs (topology file)"
  std::string driver_version, cuda_version, nccl_version;
  int gpu_count = 0;
};

struct SeriesPoint {
  std::uint64_t bytes = 0;
  double value = 0;
};

struct Series {
  std::string name;
  std::vector<SeriesPoint> points;  // ascending bytes
};

// Directed-pair matrix of one copy method at one size; cells are null where nothing was measured ok.
struct PairMatrix {
  std::string method;
  std::uint64_t bytes = 0;
  std::vector<int> gpus;                                // row/column order (CUDA ordinals)
  std::vector<std::vector<std::optional<double>>> gbps;  // [src row][dst column]
  std::vector<std::vector<std::string>> note;            // "na: no peer access" etc. for missing cells
};

struct AsymmetryRow {
  std::string method;
  int a = -1, b = -1;
  std::uint64_t bytes = 0;
  double a_to_b = 0, b_to_a = 0;
  double gap = 0;  // 1 - min/max
};

struct CollectiveRow {
  std::string op;
  std::uint64_t bytes = 0;
  std::optional<double> time_us, algbw_gbps, busbw_gbps;
  std::optional<long long> wrong;
  std::string status;
};

struct ReportData {
  MachineSummary machine;
  diagnose::Evidence evidence;
  std::vector<diagnose::Finding> findings;
  std::vector<diagnose::Hypothesis> hypotheses;
  // P2P
  std::vector<PairMatrix> matrices;    // one per uni method, at its largest size measured for most pairs
  std::vector<std::pair<std::string, std::vector<Series>>> copy_curves;  // per method: one series per directed pair
  std::vector<AsymmetryRow> asymmetry;  // per method and pair at the largest common size >= 64 MiB
  // Collectives
  std::vector<Series> busbw_curves;        // per op, out-of-place
  std::vector<CollectiveRow> collective_rows;  // per op and size, out-of-place
};

ReportData collect_report_data(const RunDocument& run);

// "all_reduce" -> same; "sm_read" -> "SM read"; "ce" -> "CE".
std::string method_label(const std::string& method);

}  // namespace linkscope::report
