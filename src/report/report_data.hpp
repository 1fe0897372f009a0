#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "diagnose/evidence.hpp"
#include "model/run.hpp"

// What the report formats (text, Markdown, HTML, SVG) show, arranged once from a typed Run: the run itself, the
// diagnosis' lookup indices over it (Evidence), and the arrangements several renderers share (matrices, curves,
// asymmetry, collective rows). Nothing here copies a fact: rows point into the Run, which must outlive the data.
namespace linkscope::report {

// The machine in words, for the header lines of every format.
struct MachineSummary {
  std::string command_line;     // config.argv joined by spaces
  std::string gpu_description;  // "2 x NVIDIA H200" or "8 GPUs in the topology model"
  std::string driver_version;   // "" when unknown
  std::string cuda_version;     // "13.0" from the CUDA runtime version
  std::string nccl_version;     // what the run's NCCL runs recorded, else the NCCL library the command loaded
  int gpu_count = 0;
};

// One plotted value against message size.
struct SeriesPoint {
  std::uint64_t bytes = 0;
  double value = 0;
};

struct Series {
  std::string name;
  std::vector<SeriesPoint> points;  // ascending bytes
};

// Directed-pair matrix of one copy method at one size; a cell is null where nothing was measured ok.
struct PairMatrix {
  std::string method;
  std::uint64_t bytes = 0;
  std::vector<int> gpus;                                  // row/column order (CUDA ordinals)
  std::vector<std::vector<const model::CopyPoint*>> cells;  // [src row][dst column]; null: not measured
  std::optional<double> gbps(std::size_t row, std::size_t column) const;  // the cell's median when measured ok
};

// A pair measured both ways with one method at the largest common size >= the comparison threshold.
struct AsymmetryRow {
  const model::CopyPoint* a_to_b = nullptr;  // a < b
  const model::CopyPoint* b_to_a = nullptr;
  double gap = 0;  // 1 - slower/faster
};

// One out-of-place collective point under the name its curve and table row carry ("all_reduce (graph)",
// "all_reduce [NCCL_P2P_DISABLE=1]").
struct CollectiveRow {
  std::string name;
  diagnose::CollectiveRef ref;
};

struct ReportData {
  explicit ReportData(const model::Run& run);

  const model::Run& run;
  diagnose::Evidence evidence;
  MachineSummary machine;
  // P2P
  std::vector<PairMatrix> matrices;  // one per one-direction method, at the size measured for most pairs
  std::vector<std::pair<std::string, std::vector<Series>>> copy_curves;  // per method: one series per directed pair
  std::vector<AsymmetryRow> asymmetry;
  // Collectives
  std::vector<Series> busbw_curves;            // per series name, out of place
  std::vector<CollectiveRow> collective_rows;  // per series name and size, out of place
};

ReportData collect_report_data(const model::Run& run);

// Findings by severity and hypotheses by verdict, as every format's summary counts them.
struct DiagnosisTally {
  int errors = 0, warnings = 0, infos = 0;
  int confirmed = 0, refuted = 0, inconclusive = 0, untested = 0;
};
DiagnosisTally tally_diagnosis(const model::Run& run);

// "sm_read" -> "SM read"; "ce" -> "CE"; anything else as it is.
std::string method_label(const std::string& method);

}  // namespace linkscope::report
