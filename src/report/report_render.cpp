#include "report/report_render.hpp"

#include <filesystem>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/file_io.hpp"
#include "report/cluster_tables.hpp"
#include "report/collective_text.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/ladder_table.hpp"
#include "report/markdown_report.hpp"
#include "report/p2p_text.hpp"
#include "report/pattern_text.hpp"
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
  throw UsageError(fmt::format("--format {}: expected text, md, html or json", text));
}

std::string report_file_name(ReportFormat format) {
  switch (format) {
    case ReportFormat::kText: return "report.txt";
    case ReportFormat::kMarkdown: return "report.md";
    case ReportFormat::kHtml: return "report.html";
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
    case ReportFormat::kText: return render_run_text(run);
    case ReportFormat::kMarkdown: return render_markdown(run);
    case ReportFormat::kHtml: return render_html(run);
    case ReportFormat::kJson: break;
  }
  return render_json(run);
}

std::vector<std::string> write_report_directory(const std::string& directory, const model::Run& run,
                                                const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(directory, error);
  if (error || !fs::is_directory(directory)) {
    throw InputError(directory, 0, "cannot create the report directory" + (error ? ": " + error.message() : ""));
  }
  // The charts of an earlier report here (report.html beside them says the directory is one): those this run
  // does not draw again are removed once the new files are written, so no stale chart sits beside the new report.
  std::set<std::string> earlier_charts;
  if (fs::exists(fs::path(directory) / "report.html", error)) {
    for (const auto& entry : fs::directory_iterator(directory, error)) {
      const bool chart = entry.is_regular_file(error) && entry.path().extension() == ".svg";
      if (chart) earlier_charts.insert(entry.path().string());
    }
  }
  std::vector<std::string> written;
  auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = (fs::path(directory) / name).string();
    write_file_atomically(path, text, inputs);
    written.push_back(path);
    earlier_charts.erase(path);
  };
  write("run.json", render_json(run));
  write("report.html", render_html(run));
  MarkdownOptions options;
  options.link_svg_files = true;
  write("report.md", render_markdown(run, options));
  for (const auto& svg : report_svgs(collect_report_data(run))) write(svg.file, svg.svg);
  for (const auto& stale : earlier_charts) fs::remove(stale, error);
  return written;
}

}  // namespace linkscope::report
