#include "report/markdown_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/terminal_text.hpp"
#include "core/text.hpp"
#include "report/cluster_tables.hpp"
#include "report/fleet_section.hpp"
#include "report/markdown_escape.hpp"
#include "report/prediction_report.hpp"
#include "report/report_data.hpp"
#include "report/report_format.hpp"
#include "report/report_svgs.hpp"
#include "report/telemetry_tables.hpp"
#include "report/report_tables.hpp"

namespace linkscope::report {

namespace {

std::string cell_text(const Cell& cell) {
  std::string out = markdown_text(cell.text);
  if (!cell.note.empty()) out += "<br><sub>" + markdown_text(cell.note) + "</sub>";
  return out;
}

std::string table_text(const Table& table) {
  std::string out = "|";
  for (const auto& h : table.header) out += " " + markdown_text(h) + " |";
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

// An italic line saying why a section is empty (our own words, which may quote run strings).
std::string missing(const std::string& why) { return "_" + markdown_text(why) + "_\n\n"; }

std::string table_or(const Table& table, const std::string& why) { return table.empty() ? missing(why) : table_text(table); }

struct Images {
  bool enabled = false;
  std::vector<std::string> files;  // the SVG files the report directory holds
  std::string operator()(const std::string& file, const std::string& alt) const {
    if (!enabled || std::find(files.begin(), files.end(), file) == files.end()) return "";
    return fmt::format("![{}]({})\n\n", markdown_text(alt), file);
  }
};

std::string finding_text(const model::Finding& f) {
  std::string out = fmt::format("### {} {}: {}\n\n", severity_label(f.severity), markdown_code(f.id), markdown_text(f.title));
  if (!f.cause.empty()) out += "**Cause:** " + markdown_text(f.cause) + "\n\n";
  out += "**Evidence:**\n\n";
  for (const auto& line : f.evidence) out += "- " + markdown_line(line) + "\n";
  out += "\n**Why it matters:** " + markdown_text(f.explanation) + "\n\n";
  if (!f.next_command.empty()) out += "**Next:** " + markdown_code(f.next_command) + "\n\n";
  return out;
}

std::string hosts_section(const model::Run& run) {
  std::string out = "## Hosts\n\n";
  if (const std::string note = host_identity_note(run); !note.empty()) out += missing("Note: " + note + ".");
  out += table_text(hosts_table(run));
  out += "### Groups of identical hosts\n\n" + table_text(host_groups_table(run));
  out += "### Differences between hosts\n\n";
  out += table_or(host_differences_table(run), "None: driver, CUDA, NCCL, GPUs, NVLinks, PCIe widths and NICs are the "
                                               "same on every host.");
  if (const auto findings = host_findings_table(run); !findings.empty()) {
    out += "### Each host's own diagnosis\n\n" + table_text(findings);
  }
  return out;
}

std::string cross_host_section(const model::Run& run, const Images& image) {
  std::string out = "## Cross-host\n\n";
  out += "NCCL sendrecv between one GPU of each pair of hosts (GB/s per direction at the largest size), then an "
         "all_reduce over every rank.\n\n";
  out += image(kCrossHostSvg, "cross-host matrix");
  out += table_or(cross_host_matrix_table(run), "Fewer than two hosts: nothing to measure between hosts.");
  out += table_or(cross_host_pairs_table(run), "No host pair was measured.");
  out += "### all_reduce over every rank\n\n" + table_or(cross_host_all_reduce_table(run), "Not run.");
  out += "### Slow hosts and NICs\n\n" + table_or(cross_host_slow_table(run), "None found.");
  return out;
}

std::string fleet_section(const model::FleetComparison& fleet, const Images& image) {
  std::string out = "## Fleet\n\n";
  out += markdown_line(fmt::format("Judged against {} ({} host(s) of machine type {}): outside when worse than the "
                                   "median by more than {} and {:g} robust z.",
                                   fleet.baseline, fleet.baseline_hosts, fleet.machine_type,
                                   format_percent(fleet.relative_threshold), fleet.z_threshold)) + "\n\n";
  if (!fleet.type_in_baseline) return out + missing("This machine type is not in the baseline: nothing was judged.");
  out += image(kFleetSvg, "this host against the fleet");
  return out + table_or(fleet_table(fleet), "No number of this run is in the baseline.");
}

std::string p2p_section(const ReportData& data, const Images& image) {
  std::string out = "## P2P copies\n\n";
  const Table host = host_copy_table(data);
  if (!data.evidence.p2p_measured) return out + missing(not_measured("P2P copies"));
  if (data.matrices.empty()) {
    out += missing("No GPU-to-GPU copy in this run (fewer than two GPUs visible to CUDA).");
    if (!host.empty()) out += "### Host copies\n\n" + table_text(host);
    return out;
  }
  for (const auto& matrix : data.matrices) {
    const std::string label = method_label(matrix.method);
    out += fmt::format("### {} copy, GB/s at {} (row = source, column = destination)\n\n", markdown_text(label),
                       format_bytes(matrix.bytes));
    out += image(p2p_heatmap_file(matrix.method), label + " heatmap");
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
  if (!host.empty()) out += "### Host copies\n\n" + table_text(host);
  return out;
}

}  // namespace

std::string render_markdown(const model::Run& run, const MarkdownOptions& options) {
  const ReportData data = collect_report_data(run);
  Images image;
  image.enabled = options.link_svg_files;
  if (image.enabled) {
    for (const auto& svg : report_svgs(data)) image.files.push_back(svg.file);
  }
  const auto& m = data.machine;
  const auto& ev = data.evidence;
  std::string out;
  out += fmt::format("# linkscope report{}\n\n", run.config.host.empty() ? "" : ": " + markdown_text(run.config.host));
  std::string facts = m.gpu_description.empty() ? "no GPU facts" : m.gpu_description;
  if (!m.driver_version.empty()) facts += " · driver " + m.driver_version;
  if (!m.cuda_version.empty()) facts += " · CUDA " + m.cuda_version;
  if (!m.nccl_version.empty()) facts += " · NCCL " + m.nccl_version;
  if (!run.config.started_at.empty()) facts += " · started " + run.config.started_at;
  out += markdown_line(facts) + "\n\n";
  if (!m.command_line.empty()) out += markdown_code(m.command_line) + "\n\n";
  if (const std::string scope = cluster_scope_note(run); !scope.empty()) out += markdown_line(scope) + "\n\n";

  // Summary and findings first.
  const DiagnosisTally tally = tally_diagnosis(run);
  out += "## Summary\n\n";
  out += fmt::format("- **Findings:** {} error, {} warning, {} info\n", tally.errors, tally.warnings, tally.infos);
  out += fmt::format("- **Hypotheses:** {} confirmed, {} refuted, {} inconclusive, {} untested\n", tally.confirmed,
                     tally.refuted, tally.inconclusive, tally.untested);
  out += "\n## Findings\n\n";
  if (run.findings.empty()) out += "_No finding: nothing looks wrong in what was measured._\n\n";
  for (const auto& f : run.findings) out += finding_text(f);

  if (has_hosts(run)) out += hosts_section(run);
  if (has_cross_host(run)) out += cross_host_section(run, image);
  if (run.fleet) out += fleet_section(*run.fleet, image);

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
  } else if (!ev.topology.present) {
    out += missing(not_measured("NCCL's topology model"));
  }

  out += p2p_section(data, image);

  out += "## Patterns\n\n";
  out += ev.patterns_measured ? table_or(patterns_table(data), "No pattern result.")
                              : missing(not_measured("Concurrent copy patterns"));
  if (const model::NumaSweep* numa = ev.numa(); numa != nullptr && numa->largest_relative_difference) {
    out += fmt::format("NUMA sweep: largest relative difference across nodes {}.\n\n",
                       format_percent(*numa->largest_relative_difference));
  }

  out += "## Collectives\n\n";
  if (!ev.collectives_measured) {
    out += missing(not_measured("NCCL collectives"));
  } else {
    out += image(kCollectivesSvg, "busbw against size");
    out += table_or(collectives_latency_table(data), "No collective point.");
    out += "busbw (GB/s, out-of-place) per size; up to 1 MiB the numbers are latency, not bandwidth:\n\n";
    out += table_or(collectives_table(data), "No collective measured ok.");
    if (const Table predicted = prediction_table(data); !predicted.empty()) {
      out += "### Measured against NCCL's model\n\n";
      out += image(kPredictionSvg, "busbw measured and predicted");
      out += table_text(predicted);
    }
  }
  if (const auto runtime = runtime_table(data); !runtime.empty()) {
    out += "### Transports NCCL chose\n\n" + table_text(runtime);
  }

  out += "## Ladder\n\n";
  if (!ev.ladder_measured) {
    out += missing(not_measured("The path ladder"));
  } else {
    out += image(kLadderSvg, "ladder");
    out += table_or(ladder_table(data), "No ladder layer.");
  }

  if (const auto& telemetry = run.measurements.telemetry) {
    out += "## During the run\n\n" + markdown_text(telemetry_summary(*telemetry)) + "\n\n";
    out += image(kTimelineSvg, "timeline of the run");
    out += "### Steps and error counters\n\n" + table_or(telemetry_steps_table(*telemetry), "No step ran.");
    out += "### Processes on the GPUs\n\n" + table_or(telemetry_processes_table(*telemetry), "NVML listed no process.");
    if (const auto xid = telemetry_xid_table(*telemetry); !xid.empty()) out += "### Xid events\n\n" + table_text(xid);
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
  // A control character in any value (ESC, NUL, C1) is shown, not kept: report.md is read on terminals too.
  return visible_controls(out);
}

}  // namespace linkscope::report
