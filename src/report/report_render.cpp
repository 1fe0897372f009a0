#include "report/report_render.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "core/error.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/markdown_report.hpp"
#include "report/report_data.hpp"
#include "report/report_svgs.hpp"
#include "report/summary_text.hpp"

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

std::string render_report(const RunDocument& run, ReportFormat format) {
  switch (format) {
    case ReportFormat::kText: return render_summary_text(run);
    case ReportFormat::kMarkdown: return render_markdown(run);
    case ReportFormat::kHtml: return render_html(run);
    case ReportFormat::kJson: break;
  }
  return render_json(run);
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(path, 0, "cannot open for writing");
  out << text;
  out.close();
  if (!out) throw InputError(path, 0, "write failed");
}

std::vector<std::string> write_report_directory(const std::string& directory, const RunDocument& run) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(directory, error);
  if (error || !fs::is_directory(directory)) {
    throw InputError(directory, 0, "cannot create the report directory" + (error ? ": " + error.message() : ""));
  }
  std::vector<std::string> written;
  auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = (fs::path(directory) / name).string();
    write_text_file(path, text);
    written.push_back(path);
  };
  write("run.json", render_json(run));
  write("report.html", render_html(run));
  MarkdownOptions options;
  options.link_svg_files = true;
  write("report.md", render_markdown(run, options));
  const ReportData data = collect_report_data(run);
  for (const auto& svg : report_svgs(run, data)) write(svg.file, svg.svg);
  return written;
}

}  // namespace linkscope::report
