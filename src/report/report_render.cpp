#include "report/report_render.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/file_set.hpp"
#include "core/terminal_text.hpp"
#include "report/cluster_tables.hpp"
#include "report/collective_text.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/ladder_table.hpp"
#include "report/markdown_report.hpp"
#include "report/p2p_text.hpp"
#include "report/pattern_text.hpp"
#include "report/prometheus_report.hpp"
#include "report/report_data.hpp"
#include "report/report_svgs.hpp"
#include "report/summary_text.hpp"
#include "report/topo_live_text.hpp"

namespace linkscope::report {

ReportFormat parse_report_format(std::string_view text) {
  if (text == "text") return ReportFormat::kText;
  if (text == "md" || text == "markdown") return ReportFormat::kMarkdown;
  if (text == "html") return ReportFormat::kHtml;
  if (text == "json") return ReportFormat::kJson;
  if (text == "prometheus") return ReportFormat::kPrometheus;
  throw UsageError(fmt::format("--format {}: expected text, md, html, json or prometheus", text));
}

std::string report_file_name(ReportFormat format) {
  switch (format) {
    case ReportFormat::kText: return "report.txt";
    case ReportFormat::kMarkdown: return "report.md";
    case ReportFormat::kHtml: return "report.html";
    case ReportFormat::kPrometheus: return "linkscope.prom";
    case ReportFormat::kJson: break;
  }
  return "run.json";
}

std::string render_run_text(const model::Run& run) {
  const std::string& command = run.config.subcommand;
  const model::Measurements& m = run.measurements;
  // A run without the section its command fills (it failed before measuring) gets the summary.
  if (command == "p2p" && m.p2p) return render_p2p_text(*m.p2p);
  if (command == "patterns" && m.patterns) return render_patterns_text(*m.patterns);
  if (command == "coll" && m.collectives) return render_coll_text(run);
  if (command == "ladder" && m.ladder) return render_ladder_text(run);
  if (command == "topo" && (run.system.present || !run.system.hosts.empty())) return render_topo_text(run);
  if (command == "cluster" && m.cross_host) return render_cluster_text(run);
  return render_summary_text(run);
}

std::string render_report(const model::Run& run, ReportFormat format) {
  switch (format) {
    case ReportFormat::kText: return visible_controls(render_run_text(run));  // a file may be cat on a terminal
    case ReportFormat::kMarkdown: return render_markdown(run);
    case ReportFormat::kHtml: return render_html(run);
    case ReportFormat::kPrometheus: return render_prometheus(run);
    case ReportFormat::kJson: break;
  }
  return render_json(run);
}

std::vector<std::string> write_report_directory(const std::string& directory, const model::Run& run,
                                                const std::vector<std::string>& inputs,
                                                const std::vector<ReportFile>& more_files) {
  // One set (core/file_set): staged whole, then swapped in, so the directory never holds half of each report.
  // run.json first: it is renamed into place first, the measured data before the views of it.
  FileSetWriter files(directory, inputs);
  files.add("run.json", render_json(run));
  files.add("report.html", render_html(run));
  MarkdownOptions options;
  options.link_svg_files = true;
  files.add("report.md", render_markdown(run, options));
  for (const auto& svg : report_svgs(collect_report_data(run))) files.add(svg.file, svg.svg);
  for (const auto& file : more_files) files.add(file.name, file.text);
  return files.commit();
}

}  // namespace linkscope::report
