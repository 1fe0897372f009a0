#include "report/report_tables.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/text.hpp"
#include "model/host_copy_kind.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/measured_summary.hpp"
#include "model/link_rate.hpp"
#include "report/four_numbers_rows.hpp"
#include "report/p2p_text.hpp"
#include "report/svg_line_chart.hpp"

namespace linkscope::report {

namespace {

using diagnose::copy_gbps;

Cell text(std::string value, std::string note = {}) { return text_cell(std::move(value), std::move(note)); }
Cell number(std::string value, std::string note = {}) { return number_cell(std::move(value), std::move(note)); }

std::string gpu_name(int id) { return fmt::format("GPU{}", id); }

// "na: no peer access": what a point that did not measure ok says about itself.
std::string status_note(model::PointStatus status, const std::string& reason) {
  return model::to_string(status) + (reason.empty() ? "" : ": " + reason);
}

}  // namespace

std::string not_measured(const std::string& what) { return what + ": not measured in this run."; }

Table hypotheses_table(const ReportData& data) {
  Table table{{"verdict", "hypothesis", "statement", "prediction", "evidence"}, {}};
  for (const auto& h : data.run.hypotheses) {
    const std::string verdict(model::verdict_name(h.verdict));
    Cell v = text(verdict);
    v.css_class = "verdict-" + verdict;
    table.rows.push_back({v, text(h.id, h.basis), text(h.statement), text(h.prediction), text(h.evidence)});
  }
  return table;
}

Table four_numbers_table(const ReportData& data) {
  Table table{{"pair type", "link status rate", "NCCL model weight", "measured P2P copy", "NCCL busbw"}, {}};
  for (const auto& row : four_numbers(data)) {
    auto share = [&](const std::optional<double>& v) {
      return v && row.link_rate_gbps && *row.link_rate_gbps > 0
                 ? " (" + format_percent(*v / *row.link_rate_gbps) + " of link)"
                 : std::string();
    };
    std::string pairs;
    for (std::size_t i = 0; i < row.pairs.size() && i < 4; ++i) {
      pairs += fmt::format("{}{}-{}", i ? ", " : "", row.pairs[i].first, row.pairs[i].second);
    }
    if (row.pairs.size() > 4) pairs += fmt::format(" +{} more", row.pairs.size() - 4);
    table.rows.push_back({
        text(row.pair_type, fmt::format("{} pair(s): {}", row.pairs.size(), pairs)),
        number(row.link_rate_gbps ? format_gbps(*row.link_rate_gbps) : "n/a", row.link_rate_what),
        number(row.model_weight ? format_number(*row.model_weight) : "n/a", row.model_weight_what),
        number(row.copy_gbps ? format_gbps(*row.copy_gbps) + share(row.copy_gbps) : "n/a", row.copy_what),
        number(row.busbw_gbps ? format_gbps(*row.busbw_gbps) + share(row.busbw_gbps) : "n/a", row.busbw_what),
    });
  }
  return table;
}

Table gpu_table(const ReportData& data) {
  Table table{{"GPU", "PCI BDF", "name", "UUID", "PCIe now / max", "NVLinks active", "NUMA / CPUs", "other processes"},
              {}};
  for (const model::Gpu* g : data.evidence.gpus) {
    const model::Gpu& gpu = *g;
    std::string pcie = "n/a";
    if (gpu.pcie.current_gen || gpu.pcie.max_gen) {
      pcie = fmt::format("Gen{} x{} / Gen{} x{}", gpu.pcie.current_gen.value_or(0), gpu.pcie.current_width.value_or(0),
                         gpu.pcie.max_gen.value_or(0), gpu.pcie.max_width.value_or(0));
    }
    std::string links = "n/a";
    if (gpu.nvlinks.has_value()) {
      links = std::to_string(gpu.active_nvlinks()) + " of " + std::to_string(gpu.nvlink_list().size());
      if (const auto speed = model::typical_nvlink_speed(gpu)) links += " x " + format_number(*speed) + " GB/s";
    }
    std::string processes;
    if (gpu.processes.has_value()) {
      for (const auto& p : *gpu.processes) {
        processes += fmt::format("{}pid {} {}", processes.empty() ? "" : ", ", p.pid, p.name);
      }
    }
    std::string numa = gpu.numa_node ? std::to_string(*gpu.numa_node) : "n/a";
    if (!gpu.cpu_affinity.value_or("").empty()) numa += " / " + *gpu.cpu_affinity;
    std::string label = gpu.label();
    if (gpu.nvml_index && gpu.cuda_ordinal) label += fmt::format(" (NVML {})", *gpu.nvml_index);
    table.rows.push_back({text(label), text(gpu.pci_bdf), text(gpu.name), text(gpu.uuid), text(pcie), text(links),
                          text(numa), text(processes.empty() ? "none" : processes)});
  }
  return table;
}

Table relation_matrix_table(const ReportData& data) {
  const auto ids = data.evidence.visible_ordinals();
  Table table;
  if (data.evidence.pairs.empty() || ids.size() < 2) return table;
  table.header.push_back("");
  for (const int id : ids) table.header.push_back(gpu_name(id));
  for (const int a : ids) {
    std::vector<Cell> row{text(gpu_name(a))};
    for (const int b : ids) {
      if (a == b) {
        row.push_back(text("X"));
        continue;
      }
      const auto* pair = data.evidence.pair(a, b);
      row.push_back(text(pair != nullptr && !pair->relation.empty() ? pair->relation : "?"));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

Table model_paths_table(const ReportData& data) {
  Table table{{"from", "to", "path type", "NCCL weight", "hops", "P2P (model)"}, {}};
  const auto& evidence = data.evidence;
  std::map<std::string, int> rank_of;
  for (const auto& gpu : evidence.model_gpus) {
    if (gpu.rank()) rank_of[gpu.id()] = *gpu.rank();
  }
  for (const auto& path : evidence.topology.paths) {
    if (rank_of.count(path.from) == 0 || rank_of.count(path.to) == 0) continue;
    const int a = rank_of[path.from], b = rank_of[path.to];
    std::string p2p = "n/a";
    for (const auto& entry : evidence.topology.p2p) {
      if (entry.src_rank == a && entry.dst_rank == b) p2p = entry.p2p ? "yes" : "no";
    }
    table.rows.push_back({text(fmt::format("{} ({})", gpu_name(a), path.from)),
                          text(fmt::format("{} ({})", gpu_name(b), path.to)), text(path.type),
                          number(format_number(path.bw)), number(std::to_string(path.count)), text(p2p)});
  }
  return table;
}

Table p2p_matrix_table(const PairMatrix& matrix) {
  Table table;
  table.header.push_back("src \\ dst");
  for (const int id : matrix.gpus) table.header.push_back(gpu_name(id));
  for (std::size_t r = 0; r < matrix.gpus.size(); ++r) {
    std::vector<Cell> row{text(gpu_name(matrix.gpus[r]))};
    for (std::size_t c = 0; c < matrix.gpus.size(); ++c) {
      const model::CopyPoint* cell = matrix.cells[r][c];
      if (r == c) {
        row.push_back(number("-"));
      } else if (const auto gbps = matrix.gbps(r, c)) {
        row.push_back(number(format_number(*gbps)));
      } else {
        row.push_back(number("N/A", cell == nullptr ? "" : status_note(cell->status, cell->reason)));
      }
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

Table asymmetry_table(const ReportData& data) {
  Table table{{"method", "pair", "size", "a -> b", "b -> a", "gap"}, {}};
  const double warn = diagnose::threshold(diagnose::Threshold::kAsymmetryWarn);
  for (const auto& row : data.asymmetry) {
    const model::CopyPoint& forward = *row.a_to_b;
    Cell gap = number(format_percent(row.gap));
    if (row.gap > warn) gap.css_class = "bad";
    table.rows.push_back({text(method_label(forward.method)), text(fmt::format("GPU{} / GPU{}", forward.src, forward.dst)),
                          number(format_bytes(forward.bytes)), number(format_number(copy_gbps(forward))),
                          number(format_number(copy_gbps(*row.b_to_a))), gap});
  }
  return table;
}

Table latency_table(const ReportData& data) {
  Table table{{"method", "src -> dst", "latency"}, {}};
  const auto end = [](int endpoint) {
    return endpoint == model::kHostEndpoint ? std::string("host") : fmt::format("GPU{}", endpoint);
  };
  for (const auto& l : data.evidence.latency()) {
    const bool ok = l.latency_ns && l.status == model::PointStatus::kOk;
    table.rows.push_back({text(l.method), text(end(l.src) + " -> " + end(l.dst)),
                          ok ? number(format_number(l.latency_ns->median) + " ns")
                             : number(model::to_string(l.status), l.reason)});
  }
  return table;
}

Table host_copy_table(const ReportData& data) {
  Table table{{"GPU", "direction", "copy", "size", "bandwidth"}, {}};
  if (!data.run.measurements.p2p) return table;
  for (const auto& entry : data.run.measurements.p2p->host) {
    table.rows.push_back({text(fmt::format("GPU{}", entry.gpu)), text(entry.direction.empty() ? "?" : entry.direction),
                          text(model::host_copy_kind(entry)), number(format_bytes(entry.bytes)),
                          entry.bandwidth_gbps ? number(format_gbps(entry.bandwidth_gbps->median)) : number("n/a")});
  }
  return table;
}

namespace {

// The point of `s` at `bytes`: a binary search (its points ascend in bytes), since a scan per cell of a table with a
// row per size is quadratic in the sizes (80,000 sizes took minutes).
const SeriesPoint* point_at(const Series& s, std::uint64_t bytes) {
  const auto it = std::lower_bound(s.points.begin(), s.points.end(), bytes,
                                   [](const SeriesPoint& p, std::uint64_t b) { return p.bytes < b; });
  return it != s.points.end() && it->bytes == bytes ? &*it : nullptr;
}

}  // namespace

Table copy_sweep_table(const ReportData& data) {
  // Columns: per method either each directed pair (few) or median/slowest/fastest over pairs (many).
  std::vector<std::pair<std::string, Series>> columns;
  for (const auto& [method, series] : data.copy_curves) {
    for (const auto& s : summarize_series(series, 4, "pairs")) {
      columns.push_back({method_label(method) + " " + s.name, s});
    }
  }
  Table table;
  if (columns.empty()) return table;
  std::set<std::uint64_t> sizes;
  for (const auto& [name, s] : columns) {
    for (const auto& p : s.points) sizes.insert(p.bytes);
  }
  if (sizes.size() < 2) return table;  // one size: the matrices say it all
  table.header.push_back("size");
  for (const auto& [name, s] : columns) table.header.push_back(name + " (GB/s)");
  for (const auto bytes : sizes) {
    std::vector<Cell> row{number(format_bytes(bytes))};
    for (const auto& [name, s] : columns) {
      const SeriesPoint* point = point_at(s, bytes);
      row.push_back(point == nullptr ? number("") : number(format_number(point->value)));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

Table patterns_table(const ReportData& data) {
  Table table{{"pattern", "copies", "kind", "size", "aggregate", "sum alone", "scaling", "status"}, {}};
  for (const auto& p : data.evidence.patterns()) {
    std::vector<std::string> copies;
    for (const auto& e : p.edges) copies.push_back(fmt::format("{}>{}", e.src, e.dst));
    table.rows.push_back({text(p.name), text(join(copies, ",")),
                          text(diagnose::is_disjoint(p) ? "disjoint" : "shared endpoint"), number(format_bytes(p.bytes)),
                          number(p.aggregate_gbps ? format_gbps(p.aggregate_gbps->median) : "n/a"),
                          number(p.sum_alone_gbps ? format_gbps(*p.sum_alone_gbps) : "n/a"),
                          number(p.scaling ? format_number(*p.scaling) : "n/a"),
                          text(model::to_string(p.status), p.reason)});
  }
  return table;
}

Table collectives_table(const ReportData& data) {
  Table table;
  if (data.busbw_curves.empty()) return table;
  std::set<std::uint64_t> sizes;
  for (const auto& s : data.busbw_curves) {
    for (const auto& p : s.points) sizes.insert(p.bytes);
  }
  table.header.push_back("size");
  for (const auto& s : data.busbw_curves) table.header.push_back(s.name);
  const auto latency_bound = static_cast<std::uint64_t>(diagnose::threshold(diagnose::Threshold::kLatencyBoundMaxBytes));
  for (const auto bytes : sizes) {
    std::vector<Cell> row{number(format_bytes(bytes), bytes <= latency_bound ? "latency-bound" : "")};
    for (const auto& s : data.busbw_curves) {
      const SeriesPoint* point = point_at(s, bytes);
      row.push_back(point == nullptr ? number("") : number(format_number(point->value)));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

Table collectives_latency_table(const ReportData& data) {
  Table table{{"op", "ranks", "smallest size", "time there", "largest size", "busbw there", "points not ok"}, {}};
  std::map<std::string, std::vector<const model::CollectivePoint*>> by_name;
  std::map<std::string, int> nranks;
  for (const auto& row : data.collective_rows) {
    by_name[row.name].push_back(row.ref.point);
    nranks[row.name] = row.ref.series->nranks;
  }
  for (const auto& [name, points] : by_name) {
    const model::CollectivePoint* smallest = nullptr;
    const model::CollectivePoint* largest = nullptr;
    int failed = 0;
    for (const auto* p : points) {
      if (p->status != "ok") {
        ++failed;
        continue;
      }
      if (p->bytes == 0) continue;  // nccl-tests prints 0-byte rows when the size is below one element per rank
      if (smallest == nullptr || p->bytes < smallest->bytes) smallest = p;
      if (largest == nullptr || p->bytes > largest->bytes) largest = p;
    }
    table.rows.push_back(
        {text(name), number(std::to_string(nranks[name])), number(smallest ? format_bytes(smallest->bytes) : "n/a"),
         number(smallest && smallest->time ? format_time_us(smallest->time->median_us) : "n/a"),
         number(largest ? format_bytes(largest->bytes) : "n/a"),
         number(largest && largest->busbw_gbps ? format_gbps(*largest->busbw_gbps) : "n/a"),
         number(std::to_string(failed))});
  }
  return table;
}

Table ladder_table(const ReportData& data) {
  Table table{{"layer", "variables", "transport", "busbw", "share of peak", "slowdown", "status"}, {}};
  for (const auto& layer : data.evidence.ladder()) {
    std::vector<std::string> env;
    for (const auto& [k, v] : layer.env) env.push_back(k + "=" + v);
    table.rows.push_back({text(layer.name), text(env.empty() ? "(none)" : join(env, " ")),
                          text(layer.transport.value_or("")),
                          number(layer.busbw_gbps ? format_gbps(*layer.busbw_gbps) : "n/a"),
                          number(layer.efficiency ? format_percent(*layer.efficiency) : "n/a"),
                          number(layer.slowdown ? format_factor(*layer.slowdown) : "n/a"),
                          text(layer.status, layer.reason.value_or(""))});
  }
  return table;
}

Table runtime_table(const ReportData& data) {
  Table table{{"run", "rank -> peer", "transport", "channels"}, {}};
  std::map<std::tuple<std::string, int, int, std::string>, std::set<int>> grouped;
  for (const auto& c : data.evidence.connections) {
    grouped[{c.run->context, c.connection->rank, c.connection->peer, c.connection->transport}].insert(c.connection->channel);
  }
  for (const auto& [key, channels] : grouped) {
    const auto& [context, rank, peer, transport] = key;
    table.rows.push_back({text(context), text(fmt::format("{} -> {}", rank, peer)), text(transport),
                          number(std::to_string(channels.size()))});
  }
  return table;
}

Table environment_table(const model::Run& run) {
  Table table{{"variable", "value"}, {}};
  const model::RunEnvironment& environment = run.environment;
  for (const auto& [key, value] : environment.variables) table.rows.push_back({text(key), text(value)});
  for (const auto& [label, value] : {std::make_pair("NCCL library", &environment.nccl_library),
                                     std::make_pair("NCCL version", &environment.nccl_version),
                                     std::make_pair("NCCL headers", &environment.nccl_headers),
                                     std::make_pair("launch", &environment.launch)}) {
    if (*value) table.rows.push_back({text(label), text(**value)});
  }
  return table;
}

Table errors_table(const model::Run& run) {
  Table table{{"where", "message"}, {}};
  for (const auto& e : run.errors) table.rows.push_back({text(e.where.empty() ? "?" : e.where), text(e.message)});
  return table;
}

Table expectations_table() {
  Table table{{"threshold", "value", "meaning", "source"}, {}};
  for (const auto& entry : diagnose::threshold_table()) {
    std::string value = entry.unit == "bytes" ? format_bytes(static_cast<std::uint64_t>(entry.value))
                        : entry.unit == "share" ? format_percent(entry.value)
                        : entry.unit == "ns"    ? format_number(entry.value) + " ns"
                        : entry.unit == "count" ? fmt::format("{:.0f}", entry.value)
                        : entry.unit == "kernel" ? fmt::format("{}.{}", static_cast<int>(entry.value) / 100,
                                                               static_cast<int>(entry.value) % 100)
                                                : format_factor(entry.value);
    table.rows.push_back({text(std::string(entry.name)), number(value), text(std::string(entry.meaning)),
                          text(std::string(entry.source))});
  }
  return table;
}

Table config_table(const model::Run& run) {
  Table table{{"field", "value"}, {}};
  auto add = [&](const std::string& name, const std::string& value) {
    if (!value.empty()) table.rows.push_back({text(name), text(value)});
  };
  add("tool", run.tool.name);
  add("version", run.tool.version);
  add("git", run.tool.git);
  add("subcommand", run.config.subcommand);
  add("command", join(run.config.argv, " "));
  add("started at (UTC)", run.config.started_at);
  add("host", run.config.host);
  if (run.topology.present) add("model source", run.topology.source);
  if (run.measurements.p2p) add("p2p config", p2p_request_text(run.measurements.p2p->request));
  if (run.config.profile) add("profile", *run.config.profile);
  if (run.config.stopped) add("stopped", *run.config.stopped);
  for (const auto& skipped : run.config.skipped) add("not run: " + skipped.step, skipped.reason);
  return table;
}

}  // namespace linkscope::report
