#pragma once
#include <string>
#include <vector>

#include "model/run.hpp"
#include "report/report_data.hpp"

// The report's tables as plain data, shared by the Markdown and HTML renderers (each only formats them).
namespace linkscope::report {

struct Cell {
  std::string text;
  std::string note;       // a second, smaller line (what the number is)
  bool numeric = false;   // right-aligned
  std::string css_class;  // "sev-error", "verdict-confirmed" ... (HTML only)
};

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<Cell>> rows;
  bool empty() const { return rows.empty(); }
};

inline Cell text_cell(std::string value, std::string note = {}) { return Cell{std::move(value), std::move(note), false, {}}; }
inline Cell number_cell(std::string value, std::string note = {}) { return Cell{std::move(value), std::move(note), true, {}}; }

Table hypotheses_table(const ReportData& data);
Table four_numbers_table(const ReportData& data);
Table gpu_table(const ReportData& data);
Table relation_matrix_table(const ReportData& data);  // nvidia-smi topo -m style: NV18 / PIX / SYS
Table model_paths_table(const ReportData& data);      // NCCL's GPU-to-GPU paths (type/weight/hops), if modelled
Table p2p_matrix_table(const PairMatrix& matrix);
Table asymmetry_table(const ReportData& data);
Table latency_table(const ReportData& data);
Table host_copy_table(const ReportData& data);
Table copy_sweep_table(const ReportData& data);      // size x (method, pair) or (method median/min/max)
Table patterns_table(const ReportData& data);
Table collectives_table(const ReportData& data);     // size x op busbw (out-of-place)
Table collectives_latency_table(const ReportData& data);  // per op: smallest-size time, largest busbw
Table ladder_table(const ReportData& data);
Table runtime_table(const ReportData& data);
Table environment_table(const model::Run& run);
Table errors_table(const model::Run& run);
Table expectations_table();
Table config_table(const model::Run& run);

// One line saying why a section is empty: "not measured in this run" or the specific reason.
std::string not_measured(const std::string& what);

}  // namespace linkscope::report
