#include "report/cluster_tables.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"
#include "core/text_table.hpp"
#include "report/isolation_text.hpp"
#include "report/svg_heatmap.hpp"

namespace linkscope::report {

namespace {

using model::CrossHost;
using model::CrossHostPair;

std::string gbps(const std::optional<double>& value) { return value ? fmt::format("{:.1f}", *value) : ""; }

std::string or_text(const std::string& text, const std::string& fallback) { return text.empty() ? fallback : text; }

std::string trait(const model::Host& host, const std::string& name) {
  const auto it = host.traits.find(name);
  return it == host.traits.end() ? "?" : it->second;
}

std::string endpoint_text(const CrossHost& cross, const model::CrossHostEndpoint& e) {
  std::string out = cross.host_name(e.host, "?");
  if (e.cuda_device) out += fmt::format(" GPU {}", *e.cuda_device);
  return out;
}

// The pair measured between hosts i and j (the last one when several were), nullptr when none was.
const CrossHostPair* pair_between(const CrossHost& cross, int i, int j) {
  const CrossHostPair* found = nullptr;
  for (const auto& pair : cross.pairs) {
    if ((pair.a.host == i && pair.b.host == j) || (pair.a.host == j && pair.b.host == i)) found = &pair;
  }
  return found;
}

}  // namespace

int rank_count(const model::System& system) {
  int ranks = 0;
  for (const auto& host : system.hosts) ranks += static_cast<int>(host.ranks.size());
  return ranks;
}

std::string mpi_job_line(const model::Run& run, const std::string& subcommand) {
  return fmt::format("linkscope {}: {} host(s), {} rank(s) under MPI ({})\n", subcommand, run.system.hosts.size(),
                     rank_count(run.system), run.environment.launch.value_or("?"));
}

std::string render_cluster_text(const model::Run& run) {
  return mpi_job_line(run, "cluster") + "\n" + render_hosts_text(run) + "\n" + render_cross_host_text(run);
}

bool has_hosts(const model::Run& run) { return !run.system.hosts.empty(); }
bool has_cross_host(const model::Run& run) { return run.measurements.cross_host.has_value(); }

Table hosts_table(const model::Run& run) {
  Table t;
  t.header = {"Host", "Ranks", "Group", "Driver", "CUDA", "NCCL", "GPUs", "NICs", "Differs from the others"};
  for (const auto& host : run.system.hosts) {
    std::vector<std::string> differences = host.differences;
    if (host.error) differences.insert(differences.begin(), "no facts: " + *host.error);
    const std::string nics = trait(host, "nic_links");
    t.rows.push_back({{host.name},
                      {rank_list(host.ranks)},
                      {std::to_string(host.group + 1), "", true},
                      {trait(host, "driver")},
                      {trait(host, "cuda_driver")},
                      {trait(host, "nccl")},
                      {trait(host, "gpu_models")},
                      {trait(host, "nic_count"), nics},
                      {differences.empty() ? "-" : join(differences, "; "), "", false,
                       differences.empty() ? "" : "sev-warning"}});
  }
  return t;
}

Table host_groups_table(const model::Run& run) {
  Table t;
  t.header = {"Group", "Hosts", "Count"};
  int index = 0;
  for (const auto& group : run.system.host_groups) {
    t.rows.push_back(
        {{std::to_string(++index), "", true}, {join(group, ", ")}, {std::to_string(group.size()), "", true}});
  }
  return t;
}

Table host_differences_table(const model::Run& run) {
  Table t;
  t.header = {"Fact", "Most hosts", "Other hosts"};
  for (const auto& d : run.system.host_differences) {
    std::vector<std::string> others;
    for (const auto& o : d.others) others.push_back(o.host + ": " + o.value);
    t.rows.push_back({{d.label},
                      {d.common_value, fmt::format("{} host(s): {}", d.common_hosts.size(), join(d.common_hosts, ", "))},
                      {join(others, "; "), "", false, "sev-warning"}});
  }
  return t;
}

Table host_findings_table(const model::Run& run) {
  Table t;
  t.header = {"Host", "Findings", "Errors"};
  for (const auto& host : run.system.hosts) {
    if (!host.findings) continue;
    std::vector<std::string> lines;
    std::string css;
    for (const auto& f : *host.findings) {
      lines.push_back(fmt::format("{} {}: {}", model::severity_name(f.severity), f.id, f.title));
      if (f.severity == model::Severity::kError) css = "sev-error";
      if (f.severity == model::Severity::kWarning && css.empty()) css = "sev-warning";
    }
    t.rows.push_back({{host.name},
                      {lines.empty() ? "none" : join(lines, "; "), "", false, css},
                      {host.run_errors.empty() ? "-" : join(host.run_errors, "; ")}});
  }
  return t;
}

Table cross_host_matrix_table(const model::Run& run) {
  Table t;
  if (!has_cross_host(run) || run.measurements.cross_host->hosts.size() < 2) return t;
  const CrossHost& cross = *run.measurements.cross_host;
  t.header = {"GB/s"};
  for (const auto& name : cross.hosts) t.header.push_back(name);
  const int n = static_cast<int>(cross.hosts.size());
  for (int i = 0; i < n; ++i) {
    std::vector<Cell> row = {{cross.hosts[static_cast<std::size_t>(i)]}};
    for (int j = 0; j < n; ++j) {
      const CrossHostPair* pair = i == j ? nullptr : pair_between(cross, i, j);
      const std::string status = pair != nullptr ? pair->status : "not measured";
      if (i == j) {
        row.push_back({"-", "", true});
      } else if (pair != nullptr && pair->bandwidth_gbps) {
        row.push_back({gbps(pair->bandwidth_gbps), status == "ok" ? "" : status, true, status == "ok" ? "" : "sev-error"});
      } else {
        row.push_back({status, "", false, status == "not measured" ? "" : "sev-error"});
      }
    }
    t.rows.push_back(row);
  }
  return t;
}

Table cross_host_pairs_table(const model::Run& run) {
  Table t;
  t.header = {"Pair", "Round", "NICs", "Transport", "Size", "GB/s", "Status"};
  if (!has_cross_host(run)) return t;
  const CrossHost& cross = *run.measurements.cross_host;
  for (const auto& pair : cross.pairs) {
    t.rows.push_back({{endpoint_text(cross, pair.a) + " <-> " + endpoint_text(cross, pair.b)},
                      {std::to_string(pair.round), "", true},
                      {or_text(pair.a.nic, "?") + " / " + or_text(pair.b.nic, "?")},
                      {or_text(pair.a.transport, "?")},
                      {pair.bytes > 0 ? format_bytes(pair.bytes) : "-", "", true},
                      {gbps(pair.bandwidth_gbps), "", true},
                      {pair.status, pair.reason.value_or(""), false, pair.status == "ok" ? "" : "sev-error"}});
  }
  return t;
}

Table cross_host_slow_table(const model::Run& run) {
  Table t;
  t.header = {"Kind", "Host", "NIC", "Measured", "Reference", "Evidence"};
  if (!has_cross_host(run)) return t;
  const CrossHost& cross = *run.measurements.cross_host;
  for (const auto& c : cross.slow) {
    std::string host = cross.host_name(c.host, "-");
    if (c.other_host >= 0) host += " <-> " + cross.host_name(c.other_host, "?");
    t.rows.push_back({{c.kind},
                      {host},
                      {or_text(c.nic, "-")},
                      {gbps(c.measured_gbps), "", true},
                      {gbps(c.reference_gbps), "", true},
                      {c.evidence, "", false, "sev-warning"}});
  }
  return t;
}

Table cross_host_all_reduce_table(const model::Run& run) {
  Table t;
  if (!has_cross_host(run)) return t;
  const CrossHost& cross = *run.measurements.cross_host;
  t.header = {"Ranks", "Size", "busbw GB/s", "Status", "Transports"};
  const model::CollectivePoint* point = cross.all_reduce ? model::largest_measured_point(*cross.all_reduce) : nullptr;
  const std::string& status = cross.all_reduce_status;
  t.rows.push_back({{cross.all_reduce ? std::to_string(cross.all_reduce->nranks) : "-", "", true},
                    {point != nullptr ? format_bytes(point->bytes) : "-", "", true},
                    {gbps(point != nullptr ? point->busbw_gbps : std::nullopt), "", true},
                    {status, cross.all_reduce_reason.value_or(""), false, status == "ok" ? "" : "sev-error"},
                    {cross.all_reduce_transports.empty() ? "-" : join(cross.all_reduce_transports, "; ")}});
  return t;
}

std::string cross_host_heatmap_svg(const model::Run& run) {
  if (!has_cross_host(run) || run.measurements.cross_host->hosts.size() < 2) return "";
  const CrossHost& cross = *run.measurements.cross_host;
  Heatmap map;
  map.id = "cross-host";
  map.title = "NCCL sendrecv between hosts, GB/s per direction";
  if (!cross.sizes_bytes.empty()) map.title += " at up to " + format_bytes(cross.sizes_bytes.back());
  map.row_axis = "host";
  map.column_axis = "host";
  map.labels = cross.hosts;
  const int n = static_cast<int>(cross.hosts.size());
  for (int i = 0; i < n; ++i) {
    std::vector<std::optional<double>> row;
    for (int j = 0; j < n; ++j) {
      const CrossHostPair* pair = i == j ? nullptr : pair_between(cross, i, j);
      row.push_back(pair != nullptr ? pair->bandwidth_gbps : std::nullopt);
    }
    map.values.push_back(row);
  }
  return render_heatmap(map);
}

std::string cluster_scope_note(const model::Run& run) {
  const auto& hosts = run.system.hosts;
  if (hosts.size() < 2) return "";
  return fmt::format("A cluster of {} hosts ({} ranks). The Hosts and Cross-host sections cover all of them; the "
                     "other sections describe {}, the host of rank 0{}.",
                     hosts.size(), rank_count(run.system), or_text(run.config.host, "?"),
                     hosts.front().run_file ? " (every host's own run is in host-<name>.json)" : "");
}

std::string host_identity_note(const model::Run& run) {
  std::vector<std::string> sources;
  for (const auto& host : run.system.hosts) {
    const std::string source = or_text(host.identity_source, "hostname");
    if (source != "hostname" && std::find(sources.begin(), sources.end(), source) == sources.end()) sources.push_back(source);
  }
  if (sources.empty()) return "";
  return "host names are not the machines' own: they come from " + join(sources, ", ") +
         " (LINKSCOPE_HOST_NAME names a host, LINKSCOPE_HOST_PER_RANK=1 makes every rank its own host)";
}

std::string table_as_text(const Table& table, const std::string& indent) {
  std::vector<std::vector<std::string>> rows = {table.header};
  for (const auto& row : table.rows) {
    std::vector<std::string> cells;
    for (const auto& cell : row) cells.push_back(cell.note.empty() || cell.text == cell.note ? cell.text : cell.text + " (" + cell.note + ")");
    rows.push_back(cells);
  }
  return aligned_table(rows, indent);
}

std::string cluster_summary_lines(const model::Run& run) {
  std::string out;
  if (has_hosts(run)) {
    out += fmt::format("  cluster: {} host(s), {} rank(s), {} group(s) of identical hosts\n", run.system.hosts.size(),
                       rank_count(run.system), run.system.host_groups.size());
    for (const auto& d : run.system.host_differences) {
      std::vector<std::string> others;
      for (const auto& o : d.others) others.push_back(o.host + " " + o.value);
      out += fmt::format("  differs: {}: {} on most hosts; {}\n", d.label, d.common_value, join(others, "; "));
    }
  }
  if (has_cross_host(run)) {
    const CrossHost& cross = *run.measurements.cross_host;
    std::optional<double> low, high;
    int measured = 0, failed = 0;
    for (const auto& pair : cross.pairs) {
      if (pair.status != "ok") ++failed;
      if (!pair.bandwidth_gbps) continue;
      ++measured;
      low = std::min(low.value_or(*pair.bandwidth_gbps), *pair.bandwidth_gbps);
      high = std::max(high.value_or(*pair.bandwidth_gbps), *pair.bandwidth_gbps);
    }
    out += measured > 0 ? fmt::format("  cross-host sendrecv: {} pair(s), {:.1f} to {:.1f} GB/s per direction", measured, *low, *high)
                        : std::string("  cross-host sendrecv: no pair measured");
    if (failed > 0) out += fmt::format(", {} failed", failed);
    const model::CollectivePoint* point = cross.all_reduce ? model::largest_measured_point(*cross.all_reduce) : nullptr;
    if (point != nullptr && point->busbw_gbps) {
      out += fmt::format("; all_reduce busbw {:.1f} GB/s over {} ranks", *point->busbw_gbps, cross.all_reduce->nranks);
    }
    out += "\n";
    for (const auto& c : cross.slow) out += "  slow: " + c.evidence + "\n";
  }
  return out;
}

std::string render_hosts_text(const model::Run& run) {
  if (!has_hosts(run)) return "";
  std::string out = fmt::format("Hosts: {} host(s) in {} group(s) of identical hosts\n", run.system.hosts.size(),
                                run.system.host_groups.size());
  if (const std::string note = host_identity_note(run); !note.empty()) out += "  note: " + note + "\n";
  out += table_as_text(hosts_table(run));
  out += "\nGroups of identical hosts:\n" + table_as_text(host_groups_table(run));
  const Table differences = host_differences_table(run);
  out += "\nDifferences between hosts:\n";
  out += differences.empty() ? "  none: driver, CUDA, NCCL, GPUs, NVLinks, PCIe widths and NICs are the same on every host\n"
                             : table_as_text(differences);
  if (const Table findings = host_findings_table(run); !findings.empty()) {
    out += "\nEach host's own diagnosis:\n" + table_as_text(findings);
  }
  return out;
}

std::string render_cross_host_text(const model::Run& run) {
  if (!has_cross_host(run)) return "";
  const CrossHost& cross = *run.measurements.cross_host;
  std::vector<std::string> sizes;
  for (const auto bytes : cross.sizes_bytes) sizes.push_back(format_bytes(bytes));
  if (cross.isolation) {  // --isolate measures groups, not the pairs of a matrix
    std::string out = fmt::format("Cross-host all_reduce, one GPU per host (sizes {}; busbw at the largest size)\n",
                                  join(sizes, ", ")) +
                      render_isolation_text(*cross.isolation, cross.hosts);
    for (const auto& note : cross.notes) out += "  note: " + note + "\n";
    return out;
  }
  std::string out = fmt::format("Cross-host NCCL sendrecv, one GPU per host ({} schedule; sizes {}; GB/s per direction at "
                                "the largest size):\n",
                                or_text(cross.schedule, "?"), join(sizes, ", "));
  const Table matrix = cross_host_matrix_table(run);
  out += matrix.empty() ? "  fewer than two hosts: nothing to measure between hosts\n" : table_as_text(matrix);
  if (const Table pairs = cross_host_pairs_table(run); !pairs.empty()) out += "\nPairs:\n" + table_as_text(pairs);
  if (const Table all_reduce = cross_host_all_reduce_table(run); !all_reduce.empty()) {
    out += "\nall_reduce over every rank:\n" + table_as_text(all_reduce);
  }
  const Table slow = cross_host_slow_table(run);
  out += "\nSlow hosts and NICs:\n";
  out += slow.empty() ? "  none found\n" : table_as_text(slow);
  for (const auto& note : cross.notes) out += "  note: " + note + "\n";
  return out;
}

}  // namespace linkscope::report
