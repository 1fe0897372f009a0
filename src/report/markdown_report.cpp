#include "report/markdown_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"
#include "report/cluster_tables.hpp"
#include "report/report_data.hpp"
#include "report/report_format.hpp"
#include "report/report_svgs.hpp"
#include "report/report_tables.hpp"

namespace linkscope::report {

namespace {

std::string cell_text(const Cell& cell) {
  std::string out = escape_markdown_cell(cell.text);
  if (!cell.note.empty()) out += "<br><sub>" + escape_markdown_cell(cell.note) + "</sub>";
  return out;
}

std::string table_text(const Table& table) {
  std::string out = "|";
  for (const auto& h : table.header) out += " " + escape_markdown_cell(h) + " |";
  out += "\n|";
  for (std::size_t i = 0; i < table.header.size(); ++i) {
    const bool numeric = !table.rows.empty() && i < table.rows.front().size() && table.rows.front()[i].numeric;
    out += numeric ? "---:|" : "---|";
  }
  out += "\n";
  for (const auto& row : table.rows) {
    out += "|";
    for (const auto& cell : row) out += " " + cell_text(cell) + " |";
    out += "\n";
  }
  return out + "\n";
}

std::string table_or(const Table& table, const std::string& missing) {
  return table.empty() ? "_" + missing + "_\n\n" : table_text(table);
}

struct Images {
  bool enabled = false;
  std::vector<std::string> files;  // the SVG files the report directory holds
  std::string operator()(const std::string& file, const std::string& alt) const {
    if (!enabled || std::find(files.begin(), files.end(), file) == files.end()) return "";
    return fmt::format("![{}]({})\n\n", alt, file);
  }
};

}  // namespace

std::string render_markdown(const RunDocument& run, const MarkdownOptions& options) {
  const ReportData data = collect_report_data(run);
  Images image;
  image.enabled = options.link_svg_files;
  if (image.enabled) {
    for (const auto& svg : report_svgs(run, data)) image.files.push_back(svg.file);
  }
  const auto& m = data.machine;
  const auto& ev = data.evidence;
  std::string out;
  out += fmt::format("# linkscope report{}\n\n", m.host.empty() ? "" : ": " + m.host);
  std::string facts = m.gpu_description.empty() ? "no GPU facts" : m.gpu_description;
  if (!m.driver_version.empty()) facts += " · driver " + m.driver_version;
  if (!m.cuda_version.empty()) facts += " · CUDA " + m.cuda_version;
  if (!m.nccl_version.empty()) facts += " · NCCL " + m.nccl_version;
  if (!m.started_at.empty()) facts += " · started " + m.started_at;
  out += facts + "\n\n";
  if (!m.command_line.empty()) out += "`" + m.command_line + "`\n\n";
  if (const std::string scope = cluster_scope_note(run); !scope.empty()) out += scope + "\n\n";

  // Summary and findings first.
  out += "## Summary\n\n";
  int counts[3] = {0, 0, 0};
  for (const auto& f : data.findings) ++counts[static_cast<int>(f.severity)];
  int verdicts[4] = {0, 0, 0, 0};
  for (const auto& h : data.hypotheses) ++verdicts[static_cast<int>(h.verdict)];
  out += fmt::format("- **Findings:** {} error, {} warning, {} info\n", counts[2], counts[1], counts[0]);
  out += fmt::format("- **Hypotheses:** {} confirmed, {} refuted, {} inconclusive, {} untested\n", verdicts[0],
                     verdicts[1], verdicts[2], verdicts[3]);
  out += "\n## Findings\n\n";
  if (data.findings.empty()) out += "_No finding: nothing looks wrong in what was measured._\n\n";
  for (const auto& f : data.findings) {
    out += fmt::format("### {} `{}`: {}\n\n", severity_label(f.severity), f.id, f.title);
    if (!f.cause.empty()) out += "**Cause:** " + f.cause + "\n\n";
    out += "**Evidence:**\n\n";
    for (const auto& line : f.evidence) out += "- " + line + "\n";
    out += "\n**Why it matters:** " + f.explanation + "\n\n";
    if (!f.next_command.empty()) out += "**Next:** `" + f.next_command + "`\n\n";
  }

  if (has_hosts(run)) {
    out += "## Hosts\n\n";
    if (const std::string note = host_identity_note(run); !note.empty()) out += "_Note: " + note + "._\n\n";
    out += table_text(hosts_table(run));
    out += "### Groups of identical hosts\n\n" + table_text(host_groups_table(run));
    out += "### Differences between hosts\n\n";
    out += table_or(host_differences_table(run), "None: driver, CUDA, NCCL, GPUs, NVLinks, PCIe widths and NICs are the "
                                                 "same on every host.");
    if (const auto findings = host_findings_table(run); !findings.empty()) {
      out += "### Each host's own diagnosis\n\n" + table_text(findings);
    }
  }
  if (has_cross_host(run)) {
    out += "## Cross-host\n\n";
    out += "NCCL sendrecv between one GPU of each pair of hosts (GB/s per direction at the largest size), then an "
           "all_reduce over every rank.\n\n";
    out += image(kCrossHostSvg, "cross-host matrix");
    out += table_or(cross_host_matrix_table(run), "Fewer than two hosts: nothing to measure between hosts.");
    out += table_or(cross_host_pairs_table(run), "No host pair was measured.");
    out += "### all_reduce over every rank\n\n" + table_or(cross_host_all_reduce_table(run), "Not run.");
    out += "### Slow hosts and NICs\n\n" + table_or(cross_host_slow_table(run), "None found.");
  }

  out += "## Hypotheses\n\n";
  out += "Predictions made from the hardware facts and NCCL's model before measuring, judged by the measurements.\n\n";
  out += table_or(hypotheses_table(data), "No hypothesis: predictions need two or more GPUs visible to CUDA, or a topology model.");

  out += "## The four numbers\n\n";
  out += "Per GPU pair type: what the wires carry, what NCCL's model assumes, what a copy measured and what NCCL "
         "measured. They are different quantities; only the last two are measurements.\n\n";
  out += table_or(four_numbers_table(data), "No GPU pair in this run.");

  out += "## Topology\n\n";
  out += image(kTopologySvg, "topology");
  out += table_or(gpu_table(data), not_measured("GPU facts (system)"));
  if (const auto relations = relation_matrix_table(data); !relations.empty()) {
    out += "GPU pair relations (`nvidia-smi topo -m` vocabulary):\n\n" + table_text(relations);
  }
  if (const auto paths = model_paths_table(data); !paths.empty()) {
    out += "NCCL's model, GPU to GPU (weights are search weights in GB/s, not bandwidths):\n\n" + table_text(paths);
  } else if (!ev.model_known) {
    out += "_" + not_measured("NCCL's topology model") + "_\n\n";
  }

  out += "## P2P copies\n\n";
  if (!ev.p2p_measured) {
    out += "_" + not_measured("P2P copies") + "_\n\n";
  } else if (data.matrices.empty()) {
    out += "_No GPU-to-GPU copy in this run (fewer than two GPUs visible to CUDA)._\n\n";
    if (const auto host = host_copy_table(run); !host.empty()) out += "### Host copies\n\n" + table_text(host);
  } else {
    for (const auto& matrix : data.matrices) {
      out += fmt::format("### {} copy, GB/s at {} (row = source, column = destination)\n\n", method_label(matrix.method),
                         format_bytes(matrix.bytes));
      out += image(p2p_heatmap_file(matrix.method), method_label(matrix.method) + " heatmap");
      out += table_text(p2p_matrix_table(matrix));
    }
    out += "### Bandwidth against size\n\n";
    for (const auto& [method, series] : data.copy_curves) {
      out += image(p2p_curve_file(method), method_label(method) + " bandwidth against size");
    }
    out += table_or(copy_sweep_table(data), "Only one size was measured; see the matrices above.");
    out += "### Direction asymmetry\n\n";
    out += table_or(asymmetry_table(data), "No pair measured in both directions at 64 MiB or more.");
    if (const auto latency = latency_table(data); !latency.empty()) out += "### Latency\n\n" + table_text(latency);
    if (const auto host = host_copy_table(run); !host.empty()) out += "### Host copies\n\n" + table_text(host);
  }

  out += "## Patterns\n\n";
  out += ev.patterns_measured ? table_or(patterns_table(data), "No pattern result.")
                              : "_" + not_measured("Concurrent copy patterns") + "_\n\n";
  if (ev.numa_measured && ev.numa_largest_relative_difference) {
    out += fmt::format("NUMA sweep: largest relative difference across nodes {}.\n\n",
                       format_percent(*ev.numa_largest_relative_difference));
  }

  out += "## Collectives\n\n";
  if (!ev.collectives_measured) {
    out += "_" + not_measured("NCCL collectives") + "_\n\n";
  } else {
    out += image(kCollectivesSvg, "busbw against size");
    out += table_or(collectives_latency_table(data), "No collective point.");
    out += "busbw (GB/s, out-of-place) per size; up to 1 MiB the numbers are latency, not bandwidth:\n\n";
    out += table_or(collectives_table(data), "No collective measured ok.");
  }
  if (const auto runtime = runtime_table(data); !runtime.empty()) {
    out += "### Transports NCCL chose\n\n" + table_text(runtime);
  }

  out += "## Ladder\n\n";
  if (!ev.ladder_measured) {
    out += "_" + not_measured("The path ladder") + "_\n\n";
  } else {
    out += image(kLadderSvg, "ladder");
    out += table_or(ladder_table(data), "No ladder layer.");
  }

  out += "## Environment\n\n";
  out += table_or(environment_table(run), "No relevant variable recorded.");
  out += "## Errors\n\n";
  out += table_or(errors_table(run), "No item failed.");
  out += "## Run configuration\n\n";
  out += table_or(config_table(run), "No configuration recorded.");
  out += "<details><summary>Thresholds and expectations used by the diagnosis</summary>\n\n";
  out += table_text(expectations_table());
  out += "</details>\n";
  return out;
}

}  // namespace linkscope::report
