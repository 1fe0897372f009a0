#include "report/html_report.hpp"

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/expectations.hpp"
#include "report/cluster_tables.hpp"
#include "report/fleet_section.hpp"
#include "report/four_numbers_rows.hpp"
#include "report/html_style.hpp"
#include "report/prediction_report.hpp"
#include "report/report_data.hpp"
#include "report/report_format.hpp"
#include "report/report_svgs.hpp"
#include "report/report_tables.hpp"
#include "report/svg_topology.hpp"
#include "report/telemetry_tables.hpp"

namespace linkscope::report {

namespace {

std::string cell_html(const Cell& cell, bool header_column) {
  std::string classes = cell.numeric ? "num" : "";
  if (!cell.css_class.empty()) classes += (classes.empty() ? "" : " ") + cell.css_class;
  const char* tag = header_column ? "th" : "td";
  std::string out = fmt::format("<{}{}>", tag, classes.empty() ? "" : " class=\"" + classes + "\"");
  out += escape_html(cell.text);
  if (!cell.note.empty()) out += "<br><small>" + escape_html(cell.note) + "</small>";
  return out + fmt::format("</{}>", tag);
}

// first_column_header: the first cell of each row is a row header (matrices).
std::string table_html(const Table& table, const std::string& css_class = "", bool first_column_header = false) {
  std::string out = "<div class=\"scroll\"><table" + (css_class.empty() ? "" : " class=\"" + css_class + "\"") + ">\n";
  out += "<thead><tr>";
  for (const auto& h : table.header) out += "<th scope=\"col\">" + escape_html(h) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : table.rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) out += cell_html(row[i], first_column_header && i == 0);
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

std::string missing(const std::string& text) { return "<p class=\"missing\">" + escape_html(text) + "</p>\n"; }

std::string table_or(const Table& table, const std::string& why, const std::string& css_class = "",
                     bool first_column_header = false) {
  return table.empty() ? missing(why) : table_html(table, css_class, first_column_header);
}

std::string figure(const std::string& svg, const std::string& caption) {
  if (svg.empty()) return "";
  if (caption.empty()) return "<figure>\n" + svg + "</figure>\n";
  return "<figure>\n" + svg + "<figcaption>" + escape_html(caption) + "</figcaption>\n</figure>\n";
}

std::string section_open(const std::string& id, const std::string& title) {
  return fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n", id, escape_html(title));
}

std::string finding_html(const model::Finding& f) {
  const std::string severity(model::severity_name(f.severity));
  std::string out = fmt::format("<article class=\"finding sev-{}\" id=\"finding-{}\">\n", severity, slug(f.id));
  out += fmt::format("<h3><span class=\"badge sev-{}\">{}</span> <code>{}</code> {}</h3>\n", severity,
                     severity_label(f.severity), escape_html(f.id), escape_html(f.title));
  if (!f.cause.empty()) out += "<p><strong>Cause:</strong> " + escape_html(f.cause) + "</p>\n";
  out += "<ul class=\"evidence\">\n";
  for (const auto& line : f.evidence) out += "<li>" + escape_html(line) + "</li>\n";
  out += "</ul>\n";
  out += "<p><strong>Why it matters:</strong> " + escape_html(f.explanation) + "</p>\n";
  if (!f.next_command.empty()) {
    out += "<p><strong>Next:</strong> <code class=\"cmd\">" + escape_html(f.next_command) + "</code></p>\n";
  }
  return out + "</article>\n";
}

}  // namespace

std::string render_html(const model::Run& run) {
  const ReportData data = collect_report_data(run);
  const auto& m = data.machine;
  const auto& ev = data.evidence;
  std::string page_title = "linkscope report" + (run.config.host.empty() ? std::string() : ": " + run.config.host);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + escape_html(page_title) + "</title>\n<style>\n" + html_style() + "</style>\n</head>\n<body>\n";

  // Header.
  out += "<header>\n<h1>" + escape_html(page_title) + "</h1>\n<p class=\"facts\">";
  std::string facts = m.gpu_description.empty() ? "no GPU facts" : m.gpu_description;
  if (!m.driver_version.empty()) facts += " · driver " + m.driver_version;
  if (!m.cuda_version.empty()) facts += " · CUDA " + m.cuda_version;
  if (!m.nccl_version.empty()) facts += " · NCCL " + m.nccl_version;
  if (!run.config.started_at.empty()) facts += " · started " + run.config.started_at + " UTC";
  out += escape_html(facts) + "</p>\n";
  if (!m.command_line.empty()) out += "<p class=\"facts\"><code>" + escape_html(m.command_line) + "</code></p>\n";
  if (const std::string scope = cluster_scope_note(run); !scope.empty()) {
    out += "<p class=\"facts\">" + escape_html(scope) + "</p>\n";
  }
  out += "</header>\n";

  out += "<nav aria-label=\"sections\"><ul>";
  std::vector<std::pair<std::string, std::string>> sections = {{"summary", "Summary"}, {"findings", "Findings"}};
  if (has_hosts(run)) sections.emplace_back("hosts", "Hosts");
  if (has_cross_host(run)) sections.emplace_back("cross-host", "Cross-host");
  if (has_fleet(run)) sections.emplace_back("fleet", "Fleet");
  for (auto& section : std::vector<std::pair<std::string, std::string>>{
           {"hypotheses", "Hypotheses"}, {"four-numbers", "Four numbers"}, {"topology", "Topology"}, {"p2p", "P2P"},
           {"patterns", "Patterns"}, {"collectives", "Collectives"}, {"ladder", "Ladder"},
           {"environment", "Environment"}, {"errors", "Errors"}, {"config", "Configuration"}}) {
    sections.push_back(std::move(section));
  }
  for (const auto& [id, name] : sections) {
    out += fmt::format("<li><a href=\"#{}\">{}</a></li>", id, name);
  }
  out += "</ul></nav>\n<main>\n";

  // Summary.
  const DiagnosisTally tally = tally_diagnosis(run);
  out += section_open("summary", "Summary");
  out += "<div class=\"cards\">\n";
  out += fmt::format("<div class=\"card sev-error\"><span class=\"big\">{}</span> error</div>\n", tally.errors);
  out += fmt::format("<div class=\"card sev-warning\"><span class=\"big\">{}</span> warning</div>\n", tally.warnings);
  out += fmt::format("<div class=\"card sev-info\"><span class=\"big\">{}</span> info</div>\n", tally.infos);
  out += fmt::format("<div class=\"card verdict-confirmed\"><span class=\"big\">{}</span> confirmed</div>\n",
                     tally.confirmed);
  out += fmt::format("<div class=\"card verdict-refuted\"><span class=\"big\">{}</span> refuted</div>\n", tally.refuted);
  out += fmt::format("<div class=\"card verdict-inconclusive\"><span class=\"big\">{}</span> inconclusive / {} untested"
                     "</div>\n",
                     tally.inconclusive, tally.untested);
  out += "</div>\n";
  const auto key_numbers = four_numbers(data);
  if (!key_numbers.empty()) out += "<ul class=\"keys\">\n";
  for (const auto& row : key_numbers) {
    out += "<li><strong>" + escape_html(row.pair_type) + " pairs:</strong> " + escape_html(key_numbers_text(row, " · ")) +
           "</li>\n";
  }
  if (!key_numbers.empty()) out += "</ul>\n";
  out += "</section>\n";

  out += section_open("findings", "Findings");
  if (run.findings.empty()) out += "<p class=\"ok\">No finding: nothing looks wrong in what was measured.</p>\n";
  for (const auto& f : run.findings) out += finding_html(f);
  out += "</section>\n";

  if (has_hosts(run)) {
    out += section_open("hosts", "Hosts");
    if (const std::string note = host_identity_note(run); !note.empty()) out += "<p>Note: " + escape_html(note) + ".</p>\n";
    out += table_html(hosts_table(run));
    out += "<h3>Groups of identical hosts</h3>\n" + table_html(host_groups_table(run));
    out += "<h3>Differences between hosts</h3>\n";
    out += table_or(host_differences_table(run),
                    "None: driver, CUDA, NCCL, GPUs, NVLinks, PCIe widths and NICs are the same on every host.");
    if (const auto findings = host_findings_table(run); !findings.empty()) {
      out += "<h3>Each host's own diagnosis</h3>\n" + table_html(findings);
    }
    out += "</section>\n";
  }
  if (has_cross_host(run)) {
    out += section_open("cross-host", "Cross-host");
    out += "<p>NCCL sendrecv between one GPU of each pair of hosts (GB/s per direction at the largest size), then an "
           "all_reduce over every rank.</p>\n";
    out += figure(cross_host_heatmap_svg(run), "row and column = host; each cell is one pair measured both ways at once");
    out += table_or(cross_host_matrix_table(run), "Fewer than two hosts: nothing to measure between hosts.", "matrix", true);
    out += table_or(cross_host_pairs_table(run), "No host pair was measured.");
    out += "<h3>all_reduce over every rank</h3>\n" + table_or(cross_host_all_reduce_table(run), "Not run.");
    out += "<h3>Slow hosts and NICs</h3>\n" + table_or(cross_host_slow_table(run), "None found.");
    out += "</section>\n";
  }

  if (run.fleet) {
    const model::FleetComparison& fleet = *run.fleet;
    out += section_open("fleet", "Fleet");
    out += "<p>" + escape_html(fmt::format("Judged against {} ({} host(s) of machine type {}): outside when worse "
                                           "than the median by more than {} and {:g} robust z.",
                                           fleet.baseline, fleet.baseline_hosts, fleet.machine_type,
                                           format_percent(fleet.relative_threshold), fleet.z_threshold)) + "</p>\n";
    if (!fleet.type_in_baseline) {
      out += missing("This machine type is not in the baseline: nothing was judged.");
    } else {
      out += figure(fleet_svg(fleet), "each number as a share of the fleet median, on the fleet's p5-p95 band");
      out += table_or(fleet_table(fleet), "No number of this run is in the baseline.");
    }
    out += "</section>\n";
  }

  out += section_open("hypotheses", "Hypotheses");
  out += "<p>Predictions made from the hardware facts and NCCL's model before measuring, judged by the "
         "measurements.</p>\n";
  out += table_or(hypotheses_table(data), "No hypothesis: predictions need two or more GPUs visible to CUDA, or a topology model.",
                  "hypotheses");
  out += "</section>\n";

  out += section_open("four-numbers", "The four numbers");
  out += "<p>Per GPU pair type: what the wires carry (link status rate), what NCCL's model assumes (a search weight), "
         "what a copy measured and what NCCL measured (busbw). Only the last two are measurements.</p>\n";
  out += table_or(four_numbers_table(data), "No GPU pair in this run.", "four");
  out += "</section>\n";

  out += section_open("topology", "Topology");
  out += figure(render_topology_svg(run), "");
  out += table_or(gpu_table(data), "GPU facts (system): not measured in this run.");
  if (const auto relations = relation_matrix_table(data); !relations.empty()) {
    out += "<h3>GPU pair relations</h3>\n" + table_html(relations, "matrix", true);
  }
  if (const auto paths = model_paths_table(data); !paths.empty()) {
    out += "<details><summary>NCCL's model, GPU to GPU (" + std::to_string(paths.rows.size()) +
           " paths; weights are search weights, not bandwidths)</summary>\n" + table_html(paths) + "</details>\n";
  } else if (!ev.topology.present) {
    out += missing(not_measured("NCCL's topology model"));
  }
  out += "</section>\n";

  out += section_open("p2p", "P2P copies");
  if (!ev.p2p_measured) {
    out += missing(not_measured("P2P copies"));
  } else if (data.matrices.empty()) {
    out += missing("No GPU-to-GPU copy in this run (fewer than two GPUs visible to CUDA).");
    if (const auto host = host_copy_table(data); !host.empty()) out += "<h3>Host copies</h3>\n" + table_html(host);
  } else {
    out += "<div class=\"grid\">\n";
    for (const auto& matrix : data.matrices) {
      out += "<div>" + figure(heatmap_svg(matrix), "row = source GPU, column = destination GPU") + "</div>\n";
    }
    out += "</div>\n";
    for (const auto& matrix : data.matrices) {
      out += fmt::format("<details><summary>{} copy matrix at {} as a table</summary>\n",
                         escape_html(method_label(matrix.method)), format_bytes(matrix.bytes));
      out += table_html(p2p_matrix_table(matrix), "matrix", true) + "</details>\n";
    }
    out += "<h3>Bandwidth against size</h3>\n";
    bool curves = false;
    for (const auto& [method, series] : data.copy_curves) {
      bool multi = false;
      for (const auto& s : series) multi = multi || s.points.size() > 1;
      if (!multi) continue;
      curves = true;
      out += figure(copy_curve_svg(data, method, series), "up to 1 MiB a copy is latency-bound: its GB/s is not a link property");
    }
    if (!curves) out += missing("Only one size was measured; see the matrices above.");
    if (const auto sweep = copy_sweep_table(data); !sweep.empty()) {
      out += "<details><summary>Copy bandwidth per size as a table</summary>\n" + table_html(sweep) + "</details>\n";
    }
    out += "<h3>Direction asymmetry</h3>\n";
    out += table_or(asymmetry_table(data), "No pair measured in both directions at 64 MiB or more.");
    if (const auto latency = latency_table(data); !latency.empty()) out += "<h3>Latency</h3>\n" + table_html(latency);
    if (const auto host = host_copy_table(data); !host.empty()) out += "<h3>Host copies</h3>\n" + table_html(host);
  }
  out += "</section>\n";

  out += section_open("patterns", "Patterns");
  out += ev.patterns_measured ? table_or(patterns_table(data), "No pattern result.")
                              : missing(not_measured("Concurrent copy patterns"));
  if (const model::NumaSweep* numa = ev.numa(); numa != nullptr && numa->largest_relative_difference) {
    out += "<p>NUMA sweep: largest relative difference across nodes " +
           format_percent(*numa->largest_relative_difference) + ".</p>\n";
  }
  out += "</section>\n";

  out += section_open("collectives", "Collectives");
  if (!ev.collectives_measured) {
    out += missing(not_measured("NCCL collectives"));
  } else {
    out += figure(collectives_svg(data), "busbw = algbw x the collective's bus factor (nccl-tests); "
                                         "up to 1 MiB the numbers are latency, not bandwidth");
    out += table_or(collectives_latency_table(data), "No collective point.");
    out += "<details><summary>busbw per size (GB/s, out-of-place)</summary>\n" +
           table_or(collectives_table(data), "No collective measured ok.") + "</details>\n";
    if (const Table predicted = prediction_table(data); !predicted.empty()) {
      out += "<h3>Measured against NCCL's model</h3>\n";
      const auto judged_from = static_cast<std::uint64_t>(
          diagnose::threshold(diagnose::Threshold::kPredictionCompareMinBytes));
      out += figure(prediction_svg(data),
                    fmt::format("NCCL's tuner predicts each call's time from its graphs and bandwidth tables; below {} "
                                "the prediction is latency and is not judged", format_bytes(judged_from)));
      out += table_html(predicted);
    }
  }
  if (const auto runtime = runtime_table(data); !runtime.empty()) {
    out += "<h3>Transports NCCL chose</h3>\n" + table_html(runtime);
  }
  out += "</section>\n";

  out += section_open("ladder", "Ladder");
  if (!ev.ladder_measured) {
    out += missing(not_measured("The path ladder"));
  } else {
    out += figure(ladder_svg(data), "each layer takes one more path away from NCCL");
    out += table_or(ladder_table(data), "No ladder layer.");
  }
  out += "</section>\n";

  if (const auto& telemetry = run.measurements.telemetry) {
    out += section_open("telemetry", "During the run");
    out += "<p>" + escape_html(telemetry_summary(*telemetry)) + "</p>\n";
    out += figure(timeline_svg(data), "steps on top; per GPU utilization and clocks; processes that were not the doctor's as bars");
    out += "<h3>Steps and error counters</h3>\n" + table_or(telemetry_steps_table(*telemetry), "No step ran.");
    out += "<h3>Processes on the GPUs</h3>\n" + table_or(telemetry_processes_table(*telemetry), "NVML listed no process.");
    if (const auto xid = telemetry_xid_table(*telemetry); !xid.empty()) out += "<h3>Xid events</h3>\n" + table_html(xid);
    out += "</section>\n";
  }

  out += section_open("environment", "Environment");
  out += table_or(environment_table(run), "No relevant variable recorded.");
  out += "</section>\n";
  out += section_open("errors", "Errors");
  out += table_or(errors_table(run), "No item failed.");
  out += "</section>\n";
  out += section_open("config", "Run configuration");
  out += table_or(config_table(run), "No configuration recorded.");
  out += "<details><summary>Thresholds and expectations used by the diagnosis</summary>\n" +
         table_html(expectations_table()) + "</details>\n";
  out += "</section>\n";
  out += "</main>\n<footer>Generated by linkscope " + escape_html(run.tool.version) +
         " from the run document alone; no network access, no scripts.</footer>\n</body>\n</html>\n";
  return out;
}

}  // namespace linkscope::report
