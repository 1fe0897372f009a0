// linkscope report: renders a saved run (diagnosing it first when it has no diagnosis, or with --rediagnose).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/terminal_text.hpp"
#include "diagnose/diagnose.hpp"
#include "model/run_file.hpp"
#include "report/report_render.hpp"

namespace linkscope::cli {

namespace {

struct ReportOptions {
  std::string run_path;
  std::optional<std::string> format;  // text (default on stdout), md, html, json, prometheus
  std::string output;                 // DIR (existing, or ending in '/') or FILE
  bool rediagnose = false;
};

bool names_directory(const std::string& path) {
  std::error_code ignored;  // a name too long to look up is not a directory; writing it says why
  return !path.empty() && (path.back() == '/' || std::filesystem::is_directory(path, ignored));
}

int run_report(const ReportOptions& options) {
  model::Run run = model::read_run_file(options.run_path);
  if (options.rediagnose || !run.has_diagnosis()) diagnose::diagnose_into(run, options.rediagnose);
  const std::vector<std::string> inputs{options.run_path};
  if (options.output.empty()) {
    const auto format = report::parse_report_format(options.format.value_or("text"));
    write_stdout(report::render_report(run, format));
    return 0;
  }
  if (names_directory(options.output) && !options.format) {
    const auto written = report::write_report_directory(options.output, run, inputs);
    print_stderr_line(fmt::format("linkscope report: wrote {} files to {}", written.size(), options.output));
    return 0;
  }
  const auto format = report::parse_report_format(options.format.value_or("html"));
  std::string path = options.output;
  if (names_directory(path)) {
    create_output_directory(path);
    path = (std::filesystem::path(path) / report::report_file_name(format)).string();
  }
  write_file_atomically(path, report::render_report(run, format), inputs);
  print_stderr_line("linkscope report: wrote " + path);
  return 0;
}

Command add_report_command(CLI::App& parent, const std::vector<std::string>& /*argv*/) {
  auto options = std::make_shared<ReportOptions>();
  Command command;
  command.app = parent.add_subcommand("report", "Render a saved run (RUN.json) as text, Markdown, HTML or JSON");
  command.app->add_option("run", options->run_path, "a Run document written by linkscope (run.json)")->required();
  command.app->add_option("--format", options->format,
                          "text (default on stdout), md, html, json or prometheus (a node-exporter textfile); "
                          "with --output DIR and no --format: all but prometheus");
  command.app->add_option("--output,-o", options->output,
                          "a FILE, or a DIR: report.html, report.md, run.json and the SVG charts")
      ->check(non_empty_path());
  command.app->add_flag("--rediagnose", options->rediagnose,
                        "make and judge the hypotheses and run every rule again, replacing the saved diagnosis");
  command.run = [options] { return run_report(*options); };
  return command;
}

const CommandRegistration kRegistration{60, &add_report_command};

}  // namespace

}  // namespace linkscope::cli
