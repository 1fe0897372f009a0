#include "report/report_data.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/cuda_version.hpp"
#include "core/text.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/measured_summary.hpp"
#include "diagnose/nccl_env.hpp"

namespace linkscope::report {

namespace {

using diagnose::copy_gbps;
using diagnose::copy_ok;
using diagnose::Evidence;
using model::CopyPoint;

MachineSummary summarize_machine(const model::Run& run, const Evidence& evidence) {
  MachineSummary machine;
  machine.command_line = join(run.config.argv, " ");
  machine.driver_version = run.system.driver.version.value_or("");
  if (const auto cuda = run.system.cuda.runtime_version) {
    machine.cuda_version = cuda_version_text(*cuda);
  }
  machine.nccl_version = evidence.nccl_version;
  if (machine.nccl_version.empty()) machine.nccl_version = run.environment.nccl_version.value_or("");
  std::map<std::string, int> names;
  for (const model::Gpu* gpu : evidence.gpus) ++names[gpu->name.empty() ? "GPU" : gpu->name];
  machine.gpu_count = static_cast<int>(evidence.gpus.size());
  for (const auto& [name, count] : names) {
    if (!machine.gpu_description.empty()) machine.gpu_description += " + ";
    machine.gpu_description += fmt::format("{} x {}", count, name);
  }
  if (evidence.gpus.empty() && !evidence.model_gpus.empty()) {
    machine.gpu_count = static_cast<int>(evidence.model_gpus.size());
    machine.gpu_description = fmt::format("{} GPUs in the topology model", evidence.model_gpus.size());
  }
  return machine;
}

bool one_direction_copy(const CopyPoint& p) { return p.direction == "uni" && p.src != p.dst; }

// Per one-direction method, the size with the most directed pairs (the largest such size on a tie).
void collect_matrices(ReportData& data) {
  const Evidence& evidence = data.evidence;
  std::map<std::string, std::map<std::uint64_t, int>> counts;
  std::set<int> gpu_set;
  for (const CopyPoint* p : evidence.p2p) {
    if (!one_direction_copy(*p)) continue;
    gpu_set.insert(p->src);
    gpu_set.insert(p->dst);
    ++counts[p->method][p->bytes];
  }
  for (const int ordinal : evidence.visible_ordinals()) gpu_set.insert(ordinal);
  const std::vector<int> gpus(gpu_set.begin(), gpu_set.end());
  auto index = [&](int gpu) { return static_cast<std::size_t>(std::find(gpus.begin(), gpus.end(), gpu) - gpus.begin()); };
  for (const auto& [method, by_size] : counts) {
    std::uint64_t chosen = 0;
    int best = 0;
    for (const auto& [bytes, count] : by_size) {
      if (count >= best) {
        best = count;
        chosen = bytes;
      }
    }
    PairMatrix matrix;
    matrix.method = method;
    matrix.bytes = chosen;
    matrix.gpus = gpus;
    matrix.cells.assign(gpus.size(), std::vector<const CopyPoint*>(gpus.size(), nullptr));
    for (const CopyPoint* p : evidence.p2p) {
      if (p->method == method && one_direction_copy(*p) && p->bytes == chosen) matrix.cells[index(p->src)][index(p->dst)] = p;
    }
    data.matrices.push_back(std::move(matrix));
  }
}

void collect_copy_curves(ReportData& data) {
  std::map<std::string, std::map<std::pair<int, int>, Series>> curves;
  for (const CopyPoint* p : data.evidence.p2p) {
    if (!copy_ok(*p) || p->direction != "uni") continue;
    auto& series = curves[p->method][{p->src, p->dst}];
    series.name = fmt::format("GPU{}->GPU{}", p->src, p->dst);
    series.points.push_back({p->bytes, copy_gbps(*p)});
  }
  for (auto& [method, by_pair] : curves) {
    std::vector<Series> list;
    for (auto& [pair, series] : by_pair) {
      std::sort(series.points.begin(), series.points.end(),
                [](const SeriesPoint& a, const SeriesPoint& b) { return a.bytes < b.bytes; });
      list.push_back(std::move(series));
    }
    data.copy_curves.push_back({method, std::move(list)});
  }
}

void collect_asymmetry(ReportData& data) {
  const auto min_bytes = static_cast<std::uint64_t>(diagnose::threshold(diagnose::Threshold::kBandwidthCompareMinBytes));
  std::map<std::tuple<std::string, int, int>, AsymmetryRow> rows;
  for (const CopyPoint* forward : data.evidence.p2p) {
    if (!copy_ok(*forward) || forward->direction != "uni" || forward->src >= forward->dst || forward->bytes < min_bytes) {
      continue;
    }
    for (const CopyPoint* backward : data.evidence.p2p) {
      if (!copy_ok(*backward) || backward->direction != "uni" || backward->method != forward->method ||
          backward->src != forward->dst || backward->dst != forward->src || backward->bytes != forward->bytes) {
        continue;
      }
      auto& row = rows[{forward->method, forward->src, forward->dst}];
      if (row.a_to_b != nullptr && forward->bytes < row.a_to_b->bytes) continue;
      row = {forward, backward, diagnose::relative_gap(copy_gbps(*forward), copy_gbps(*backward))};
    }
  }
  for (auto& [key, row] : rows) data.asymmetry.push_back(row);
}

// "all_reduce (graph) [NCCL_P2P_DISABLE=1]": a what-if series keeps its own curve, named by its path variables.
std::string series_name(const diagnose::CollectiveRef& ref) {
  std::string name = ref.op() + (ref.series->graph ? " (graph)" : "");
  if (ref.what_if) {
    std::vector<std::string> variables;
    for (const auto& [key, value] : ref.series->env) {
      if (diagnose::is_path_variable(key)) variables.push_back(key + "=" + value);
    }
    name += " [" + join(variables, " ") + "]";
  }
  return name;
}

void collect_collectives(ReportData& data) {
  std::map<std::string, Series> curves;
  for (const auto& ref : data.evidence.collectives) {
    if (ref.point->in_place) continue;
    const std::string name = series_name(ref);
    data.collective_rows.push_back({name, ref});
    // A collective over one rank moves no data between GPUs: its "busbw" is 0 (or a local copy), not a curve.
    if (!ref.ok() || ref.point->bytes == 0 || ref.series->nranks < 2) continue;
    auto& series = curves[name];
    series.name = name;
    series.points.push_back({ref.point->bytes, ref.busbw()});
  }
  for (auto& [name, series] : curves) {
    std::sort(series.points.begin(), series.points.end(),
              [](const SeriesPoint& a, const SeriesPoint& b) { return a.bytes < b.bytes; });
    data.busbw_curves.push_back(std::move(series));
  }
}

}  // namespace

std::optional<double> PairMatrix::gbps(std::size_t row, std::size_t column) const {
  const CopyPoint* point = cells[row][column];
  if (point == nullptr || !copy_ok(*point)) return std::nullopt;
  return copy_gbps(*point);
}

std::string method_label(const std::string& method) {
  if (method == "ce") return "CE";
  if (method == "sm_read") return "SM read";
  if (method == "sm_write") return "SM write";
  return method;
}

ReportData::ReportData(const model::Run& r) : run(r), evidence(r) {
  machine = summarize_machine(run, evidence);
  collect_matrices(*this);
  collect_copy_curves(*this);
  collect_asymmetry(*this);
  collect_collectives(*this);
}

ReportData collect_report_data(const model::Run& run) { return ReportData(run); }

DiagnosisTally tally_diagnosis(const model::Run& run) {
  DiagnosisTally tally;
  for (const auto& f : run.findings) {
    switch (f.severity) {
      case model::Severity::kError: ++tally.errors; break;
      case model::Severity::kWarning: ++tally.warnings; break;
      case model::Severity::kInfo: ++tally.infos; break;
    }
  }
  for (const auto& h : run.hypotheses) {
    switch (h.verdict) {
      case model::Verdict::kConfirmed: ++tally.confirmed; break;
      case model::Verdict::kRefuted: ++tally.refuted; break;
      case model::Verdict::kInconclusive: ++tally.inconclusive; break;
      case model::Verdict::kUntested: ++tally.untested; break;
    }
  }
  return tally;
}

}  // namespace linkscope::report
