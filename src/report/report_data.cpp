#include "report/report_data.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/json_access.hpp"
#include "diagnose/nccl_env.hpp"

namespace linkscope::report {

namespace {

using diagnose::Evidence;
using diagnose::opt_string;
using diagnose::string_or;

MachineSummary summarize_machine(const RunDocument& run, const Evidence& evidence) {
  MachineSummary machine;
  machine.host = string_or(run.config, "host", "");
  machine.started_at = string_or(run.config, "started_at", "");
  machine.tool_version = string_or(run.tool, "version", "");
  machine.subcommand = string_or(run.config, "subcommand", "");
  for (const auto& arg : diagnose::array_or_empty(run.config, "argv")) {
    if (!arg.is_string()) continue;
    if (!machine.command_line.empty()) machine.command_line += ' ';
    machine.command_line += arg.get<std::string>();
  }
  machine.driver_version = string_or(diagnose::object_or_empty(run.system, "driver"), "version", "");
  if (const auto cuda = diagnose::opt_int(diagnose::object_or_empty(run.system, "cuda"), "runtime_version")) {
    machine.cuda_version = fmt::format("{}.{}", *cuda / 1000, (*cuda % 1000) / 10);
  }
  machine.nccl_version = evidence.nccl_version;
  if (machine.nccl_version.empty()) {
    machine.nccl_version = string_or(diagnose::object_or_empty(run.environment, "libraries"), "nccl", "");
  }
  std::map<std::string, int> names;
  for (const auto& gpu : evidence.gpus) ++names[gpu.name.empty() ? "GPU" : gpu.name];
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

void collect_p2p(ReportData& data) {
  const Evidence& evidence = data.evidence;
  // Matrices: per uni method, the largest size with the most directed pairs.
  std::map<std::string, std::map<std::uint64_t, int>> counts;
  std::set<int> gpu_set;
  for (const auto& p : evidence.p2p) {
    if (p.direction != "uni" || p.src == p.dst) continue;
    gpu_set.insert(p.src);
    gpu_set.insert(p.dst);
    ++counts[p.method][p.bytes];
  }
  for (const int ordinal : evidence.visible_ordinals()) gpu_set.insert(ordinal);
  const std::vector<int> gpus(gpu_set.begin(), gpu_set.end());
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
    matrix.gbps.assign(gpus.size(), std::vector<std::optional<double>>(gpus.size()));
    matrix.note.assign(gpus.size(), std::vector<std::string>(gpus.size()));
    auto index = [&](int gpu) {
      return static_cast<std::size_t>(std::find(gpus.begin(), gpus.end(), gpu) - gpus.begin());
    };
    for (const auto& p : evidence.p2p) {
      if (p.method != method || p.direction != "uni" || p.bytes != chosen || p.src == p.dst) continue;
      const std::size_t r = index(p.src), c = index(p.dst);
      if (p.ok()) {
        matrix.gbps[r][c] = *p.bandwidth_gbps;
      } else {
        matrix.note[r][c] = p.status + (p.reason.empty() ? "" : ": " + p.reason);
      }
    }
    data.matrices.push_back(std::move(matrix));
  }

  // Curves per method and directed pair.
  std::map<std::string, std::map<std::pair<int, int>, Series>> curves;
  for (const auto& p : evidence.p2p) {
    if (!p.ok() || p.direction != "uni") continue;
    auto& series = curves[p.method][{p.src, p.dst}];
    series.name = fmt::format("GPU{}->GPU{}", p.src, p.dst);
    series.points.push_back({p.bytes, *p.bandwidth_gbps});
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

  // Asymmetry at the largest common size >= the comparison threshold.
  const auto min_bytes = static_cast<std::uint64_t>(diagnose::threshold(diagnose::Threshold::kBandwidthCompareMinBytes));
  std::map<std::tuple<std::string, int, int>, AsymmetryRow> rows;
  for (const auto& forward : evidence.p2p) {
    if (!forward.ok() || forward.direction != "uni" || forward.src >= forward.dst || forward.bytes < min_bytes) continue;
    for (const auto& backward : evidence.p2p) {
      if (!backward.ok() || backward.direction != "uni" || backward.method != forward.method ||
          backward.src != forward.dst || backward.dst != forward.src || backward.bytes != forward.bytes) {
        continue;
      }
      auto& row = rows[{forward.method, forward.src, forward.dst}];
      if (forward.bytes < row.bytes) continue;
      row = {forward.method, forward.src, forward.dst, forward.bytes, *forward.bandwidth_gbps, *backward.bandwidth_gbps,
             diagnose::relative_gap(*forward.bandwidth_gbps, *backward.bandwidth_gbps)};
    }
  }
  for (auto& [key, row] : rows) data.asymmetry.push_back(row);
}

void collect_collectives(ReportData& data) {
  std::map<std::string, Series> curves;
  for (const auto& p : data.evidence.collectives) {
    if (p.in_place) continue;
    std::string name = p.op + (p.graph ? " (graph)" : "");
    if (p.what_if) {
      // A what-if series keeps its own curve, named by its variables.
      std::string env;
      for (const auto& [key, value] : p.env) {
        if (diagnose::is_path_variable(key)) env += (env.empty() ? "" : " ") + key + "=" + value;
      }
      name += " [" + env + "]";
    }
    data.collective_rows.push_back({name, p.bytes, p.time_us, p.algbw_gbps, p.busbw_gbps, p.wrong, p.status});
    if (!p.ok() || p.bytes == 0) continue;
    auto& series = curves[name];
    series.name = name;
    series.points.push_back({p.bytes, *p.busbw_gbps});
  }
  for (auto& [name, series] : curves) {
    std::sort(series.points.begin(), series.points.end(),
              [](const SeriesPoint& a, const SeriesPoint& b) { return a.bytes < b.bytes; });
    data.busbw_curves.push_back(std::move(series));
  }
}

}  // namespace

std::string method_label(const std::string& method) {
  if (method == "ce") return "CE";
  if (method == "sm_read") return "SM read";
  if (method == "sm_write") return "SM write";
  if (method == "staged") return "staged";
  return method;
}

ReportData collect_report_data(const RunDocument& run) {
  ReportData data;
  data.evidence = diagnose::collect_evidence(run);
  data.machine = summarize_machine(run, data.evidence);
  data.findings = diagnose::findings_from_json(run.findings);
  data.hypotheses = diagnose::hypotheses_from_json(run.hypotheses);
  collect_p2p(data);
  collect_collectives(data);
  return data;
}

}  // namespace linkscope::report
