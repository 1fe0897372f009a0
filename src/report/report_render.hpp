#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/run.hpp"

// One entry point for every output format, and the report directory `doctor` and `report` write.
namespace linkscope::report {

enum class ReportFormat { kText, kMarkdown, kHtml, kJson };

// "text", "md" (or "markdown"), "html", "json"; throws UsageError naming the value otherwise.
ReportFormat parse_report_format(std::string_view text);
// "report.txt", "report.md", "report.html", "run.json".
std::string report_file_name(ReportFormat format);

std::string render_report(const RunDocument& run, ReportFormat format);

// Writes report.html, report.md (linking the SVGs), the SVG charts and run.json into `directory` (created when
// missing); returns the paths written. Errors name the path.
std::vector<std::string> write_report_directory(const std::string& directory, const RunDocument& run);

// Writes `text` to `path` (truncating); throws InputError naming the path when it cannot.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace linkscope::report
