#include "report/cluster_tables.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/text_table.hpp"
#include "cluster/roster.hpp"
#include "core/text.hpp"
#include "report/svg_heatmap.hpp"

namespace linkscope::report {

namespace {

using nlohmann::json;

const json& at(const json& object, const char* key) {
  static const json null_value;
  if (!object.is_object()) return null_value;
  const auto found = object.find(key);
  return found == object.end() ? null_value : *found;
}

std::string text(const json& value, const std::string& fallback = "?") {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<long long>());
  return fallback;
}


std::string gbps(const json& value) { return value.is_number() ? fmt::format("{:.1f}", value.get<double>()) : ""; }

const json& hosts(const RunDocument& run) { return at(run.system, "hosts"); }
const json& cross(const RunDocument& run) { return at(run.measurements, "cross_host"); }

std::string endpoint_text(const json& e) {
  std::string out = text(at(e, "host"));
  if (at(e, "cuda_device").is_number()) out += fmt::format(" GPU {}", at(e, "cuda_device").get<int>());
  return out;
}

}  // namespace

bool has_hosts(const RunDocument& run) { return hosts(run).is_array() && !hosts(run).empty(); }
bool has_cross_host(const RunDocument& run) { return cross(run).is_object(); }

Table hosts_table(const RunDocument& run) {
  Table t;
  t.header = {"Host", "Ranks", "Group", "Driver", "CUDA", "NCCL", "GPUs", "NICs", "Differs from the others"};
  for (const auto& host : hosts(run)) {
    const json& traits = at(host, "traits");
    std::vector<std::string> differences;
    for (const auto& line : at(host, "differences")) differences.push_back(text(line));
    if (at(host, "error").is_string()) differences.insert(differences.begin(), "no facts: " + host["error"].get<std::string>());
    std::vector<int> ranks;
    for (const auto& r : at(host, "ranks")) ranks.push_back(r.get<int>());
    t.rows.push_back({{text(at(host, "name"))},
                      {cluster::rank_list(ranks)},
                      {at(host, "group").is_number() ? std::to_string(host["group"].get<int>() + 1) : "?", "", true},
                      {text(at(traits, "driver"))},
                      {text(at(traits, "cuda_driver"))},
                      {text(at(traits, "nccl"))},
                      {text(at(traits, "gpu_models"))},
                      {text(at(traits, "nic_count")), text(at(traits, "nic_links"))},
                      {differences.empty() ? "-" : join(differences, "; "), "",
                       false, differences.empty() ? "" : "sev-warning"}});
  }
  return t;
}

Table host_groups_table(const RunDocument& run) {
  Table t;
  t.header = {"Group", "Hosts", "Count"};
  int index = 0;
  for (const auto& group : at(run.system, "host_groups")) {
    std::vector<std::string> names;
    for (const auto& name : at(group, "hosts")) names.push_back(text(name));
    t.rows.push_back({{std::to_string(++index), "", true}, {join(names, ", ")}, {std::to_string(names.size()), "", true}});
  }
  return t;
}

Table host_differences_table(const RunDocument& run) {
  Table t;
  t.header = {"Fact", "Most hosts", "Other hosts"};
  for (const auto& d : at(run.system, "host_differences")) {
    std::vector<std::string> common;
    for (const auto& name : at(d, "common_hosts")) common.push_back(text(name));
    std::vector<std::string> others;
    for (const auto& o : at(d, "others")) others.push_back(fmt::format("{}: {}", text(at(o, "host")), text(at(o, "value"))));
    t.rows.push_back({{text(at(d, "label"))},
                      {text(at(d, "common_value")), fmt::format("{} host(s): {}", common.size(), join(common, ", "))},
                      {join(others, "; "), "", false, "sev-warning"}});
  }
  return t;
}

Table host_findings_table(const RunDocument& run) {
  Table t;
  t.header = {"Host", "Findings", "Errors"};
  bool any = false;
  for (const auto& host : hosts(run)) {
    const json& findings = at(host, "findings");
    if (!findings.is_array()) continue;
    any = true;
    std::vector<std::string> lines;
    std::string css;
    for (const auto& f : findings) {
      const std::string severity = text(at(f, "severity"));
      lines.push_back(fmt::format("{} {}: {}", severity, text(at(f, "id")), text(at(f, "title"))));
      if (severity == "error") css = "sev-error";
      if (severity == "warning" && css.empty()) css = "sev-warning";
    }
    std::vector<std::string> errors;
    for (const auto& e : at(host, "run_errors")) errors.push_back(text(at(e, "where")) + ": " + text(at(e, "message")));
    t.rows.push_back({{text(at(host, "name"))},
                      {lines.empty() ? "none" : join(lines, "; "), "", false, css},
                      {errors.empty() ? "-" : join(errors, "; ")}});
  }
  if (!any) t.rows.clear();
  return t;
}

Table cross_host_matrix_table(const RunDocument& run) {
  Table t;
  const json& matrix = at(cross(run), "matrix");
  const json& names = at(matrix, "hosts");
  if (!names.is_array() || names.size() < 2) return t;
  t.header = {"GB/s"};
  for (const auto& name : names) t.header.push_back(text(name));
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::vector<Cell> row = {{text(names[i])}};
    for (std::size_t j = 0; j < names.size(); ++j) {
      const json& value = matrix["bandwidth_gbps"][i][j];
      const std::string status = text(matrix["status"][i][j]);
      if (i == j) {
        row.push_back({"-", "", true});
      } else if (value.is_number()) {
        row.push_back({gbps(value), status == "ok" ? "" : status, true, status == "ok" ? "" : "sev-error"});
      } else {
        row.push_back({status, "", false, status == "not measured" ? "" : "sev-error"});
      }
    }
    t.rows.push_back(row);
  }
  return t;
}

Table cross_host_pairs_table(const RunDocument& run) {
  Table t;
  t.header = {"Pair", "Round", "NICs", "Transport", "Size", "GB/s", "Status"};
  for (const auto& pair : at(cross(run), "pairs")) {
    const json& a = at(pair, "a");
    const json& b = at(pair, "b");
    const std::string nics = text(at(a, "nic"), "?") + " / " + text(at(b, "nic"), "?");
    const std::string status = text(at(pair, "status"));
    t.rows.push_back({{endpoint_text(a) + " <-> " + endpoint_text(b)},
                      {text(at(pair, "round")), "", true},
                      {nics},
                      {text(at(a, "transport"), "?")},
                      {at(pair, "bytes").is_number() && pair["bytes"].get<std::uint64_t>() > 0
                           ? format_bytes(pair["bytes"].get<std::uint64_t>())
                           : "-",
                       "", true},
                      {gbps(at(pair, "bandwidth_gbps")), "", true},
                      {status, text(at(pair, "reason"), ""), false, status == "ok" ? "" : "sev-error"}});
  }
  return t;
}

Table cross_host_slow_table(const RunDocument& run) {
  Table t;
  t.header = {"Kind", "Host", "NIC", "Measured", "Reference", "Evidence"};
  for (const auto& c : at(cross(run), "slow")) {
    std::string host = text(at(c, "host"), "-");
    if (at(c, "other_host").is_string()) host += " <-> " + c["other_host"].get<std::string>();
    t.rows.push_back({{text(at(c, "kind"))},
                      {host},
                      {text(at(c, "nic"), "-")},
                      {gbps(at(c, "measured_gbps")), "", true},
                      {gbps(at(c, "reference_gbps")), "", true},
                      {text(at(c, "evidence")), "", false, "sev-warning"}});
  }
  return t;
}

Table cross_host_all_reduce_table(const RunDocument& run) {
  Table t;
  const json& ar = at(cross(run), "all_reduce");
  if (!ar.is_object()) return t;
  t.header = {"Ranks", "Size", "busbw GB/s", "Status", "Transports"};
  std::vector<std::string> transports;
  for (const auto& line : at(ar, "transports")) transports.push_back(text(line));
  const std::string status = text(at(ar, "status"));
  t.rows.push_back({{text(at(ar, "nranks"), "-"), "", true},
                    {at(ar, "bytes").is_number() ? format_bytes(ar["bytes"].get<std::uint64_t>()) : "-", "", true},
                    {gbps(at(ar, "busbw_gbps")), "", true},
                    {status, text(at(ar, "reason"), ""), false, status == "ok" ? "" : "sev-error"},
                    {transports.empty() ? "-" : join(transports, "; ")}});
  return t;
}

std::string cross_host_heatmap_svg(const RunDocument& run) {
  const json& matrix = at(cross(run), "matrix");
  const json& names = at(matrix, "hosts");
  if (!names.is_array() || names.size() < 2) return "";
  Heatmap map;
  map.id = "cross-host";
  map.title = "NCCL sendrecv between hosts, GB/s per direction";
  const json& sizes = at(cross(run), "sizes_bytes");
  if (sizes.is_array() && !sizes.empty()) {
    map.title += " at up to " + format_bytes(sizes.back().get<std::uint64_t>());
  }
  map.row_axis = "host";
  map.column_axis = "host";
  for (const auto& name : names) map.labels.push_back(text(name));
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::vector<std::optional<double>> row;
    for (std::size_t j = 0; j < names.size(); ++j) {
      const json& value = matrix["bandwidth_gbps"][i][j];
      row.push_back(value.is_number() ? std::optional<double>(value.get<double>()) : std::nullopt);
    }
    map.values.push_back(row);
  }
  return render_heatmap(map);
}

std::string cluster_scope_note(const RunDocument& run) {
  if (!has_hosts(run) || hosts(run).size() < 2) return "";
  int ranks = 0;
  for (const auto& host : hosts(run)) ranks += static_cast<int>(at(host, "ranks").size());
  return fmt::format("A cluster of {} hosts ({} ranks). The Hosts and Cross-host sections cover all of them; the "
                     "other sections describe {}, the host of rank 0{}.",
                     hosts(run).size(), ranks, text(at(run.config, "host")),
                     at(hosts(run)[0], "run_file").is_string() ? " (every host's own run is in host-<name>.json)" : "");
}

std::string host_identity_note(const RunDocument& run) {
  std::vector<std::string> sources;
  for (const auto& host : hosts(run)) {
    const std::string source = text(at(host, "identity_source"), "hostname");
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

std::string cluster_summary_lines(const RunDocument& run) {
  std::string out;
  if (has_hosts(run)) {
    int ranks = 0;
    for (const auto& host : hosts(run)) ranks += static_cast<int>(at(host, "ranks").size());
    out += fmt::format("  cluster: {} host(s), {} rank(s), {} group(s) of identical hosts\n", hosts(run).size(), ranks,
                       at(run.system, "host_groups").size());
    for (const auto& d : at(run.system, "host_differences")) {
      std::vector<std::string> others;
      for (const auto& o : at(d, "others")) others.push_back(text(at(o, "host")) + " " + text(at(o, "value")));
      out += fmt::format("  differs: {}: {} on most hosts; {}\n", text(at(d, "label")), text(at(d, "common_value")),
                         join(others, "; "));
    }
  }
  if (has_cross_host(run)) {
    std::optional<double> low, high;
    int measured = 0, failed = 0;
    for (const auto& pair : at(cross(run), "pairs")) {
      const json& value = at(pair, "bandwidth_gbps");
      if (text(at(pair, "status")) != "ok") ++failed;
      if (!value.is_number()) continue;
      ++measured;
      low = std::min(low.value_or(value.get<double>()), value.get<double>());
      high = std::max(high.value_or(value.get<double>()), value.get<double>());
    }
    out += measured > 0 ? fmt::format("  cross-host sendrecv: {} pair(s), {:.1f} to {:.1f} GB/s per direction", measured, *low, *high)
                        : std::string("  cross-host sendrecv: no pair measured");
    if (failed > 0) out += fmt::format(", {} failed", failed);
    const json& ar = at(cross(run), "all_reduce");
    if (at(ar, "busbw_gbps").is_number()) {
      out += fmt::format("; all_reduce busbw {:.1f} GB/s over {} ranks", ar["busbw_gbps"].get<double>(), text(at(ar, "nranks")));
    }
    out += "\n";
    for (const auto& c : at(cross(run), "slow")) out += "  slow: " + text(at(c, "evidence")) + "\n";
  }
  return out;
}

std::string render_hosts_text(const RunDocument& run) {
  if (!has_hosts(run)) return "";
  const json& groups = at(run.system, "host_groups");
  std::string out = fmt::format("Hosts: {} host(s) in {} group(s) of identical hosts\n", hosts(run).size(), groups.size());
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

std::string render_cross_host_text(const RunDocument& run) {
  if (!has_cross_host(run)) return "";
  const json& c = cross(run);
  std::vector<std::string> sizes;
  for (const auto& s : at(c, "sizes_bytes")) sizes.push_back(format_bytes(s.get<std::uint64_t>()));
  std::string out = fmt::format("Cross-host NCCL sendrecv, one GPU per host ({} schedule; sizes {}; GB/s per direction at "
                                "the largest size):\n",
                                text(at(c, "schedule")), join(sizes, ", "));
  const Table matrix = cross_host_matrix_table(run);
  out += matrix.empty() ? "  fewer than two hosts: nothing to measure between hosts\n" : table_as_text(matrix);
  if (const Table pairs = cross_host_pairs_table(run); !pairs.empty()) out += "\nPairs:\n" + table_as_text(pairs);
  if (const Table all_reduce = cross_host_all_reduce_table(run); !all_reduce.empty()) {
    out += "\nall_reduce over every rank:\n" + table_as_text(all_reduce);
  }
  const Table slow = cross_host_slow_table(run);
  out += "\nSlow hosts and NICs:\n";
  out += slow.empty() ? "  none found\n" : table_as_text(slow);
  for (const auto& note : at(c, "notes")) out += "  note: " + text(note) + "\n";
  return out;
}

}  // namespace linkscope::report
