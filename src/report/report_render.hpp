#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "model/run.hpp"

// One entry point for every output format, and the report directory `doctor` and `report` write.
namespace linkscope::report {

enum class ReportFormat { kText, kMarkdown, kHtml, kJson, kPrometheus };

// "text", "md" (or "markdown"), "html", "json", "prometheus"; throws UsageError naming the value otherwise.
ReportFormat parse_report_format(std::string_view text);
// "report.txt", "report.md", "report.html", "run.json", "linkscope.prom".
std::string report_file_name(ReportFormat format);

// What the run's own command printed on the terminal, from the saved run: p2p, patterns, coll, ladder, topo and
// cluster their tables (the live commands print with the same functions), every other run the short summary.
std::string render_run_text(const model::Run& run);

// kText: render_run_text; kMarkdown: report.md; kHtml: report.html; kJson: the run document; kPrometheus: a
// node-exporter textfile (report/prometheus_report).
std::string render_report(const model::Run& run, ReportFormat format);

// A file the report directory holds beside the report's own (a cluster's host runs, host-NAME.json).
struct ReportFile {
  std::string name;
  std::string text;
};

// Writes run.json, report.html, report.md (linking the SVGs), the SVG charts and `more_files` into `directory`
// (created when missing) as one set (core/file_set): staged, then swapped in, the earlier report's files that this
// one lacks removed, never a file linkscope did not write, never over one of `inputs`; returns the paths written.
// Errors are InputErrors naming the path; SIGINT/SIGTERM/SIGHUP during the write is an Error with exit 130.
std::vector<std::string> write_report_directory(const std::string& directory, const model::Run& run,
                                                const std::vector<std::string>& inputs = {},
                                                const std::vector<ReportFile>& more_files = {});

}  // namespace linkscope::report
