// linkscope baseline: robust statistics per machine type over the saved runs of many hosts (src/fleet), the file
// `doctor --baseline`, `compare --baseline` judge a host against.
#include <memory>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/terminal_text.hpp"
#include "fleet/baseline.hpp"
#include "linkscope/version.hpp"
#include "model/run_file.hpp"

namespace linkscope::cli {

namespace {

struct BaselineOptions {
  std::vector<std::string> run_paths;
  std::string output_path;  // empty: standard output
};

int run_baseline(const BaselineOptions& options) {
  if (options.run_paths.empty()) throw UsageError("baseline: no runs given (linkscope baseline RUN.json... -o FILE)");
  if (!options.output_path.empty()) check_output_path(options.output_path, "--output");
  std::vector<std::pair<std::string, model::Run>> runs;
  for (const auto& path : options.run_paths) runs.emplace_back(path, model::read_run_file(path));
  fleet::Baseline baseline = fleet::build_baseline(runs);
  baseline.tool_version = kVersion;
  const std::string text = fleet::baseline_to_json(baseline).dump(2) + "\n";
  if (options.output_path.empty()) {
    write_stdout(text);
  } else {
    write_file_atomically(options.output_path, text, options.run_paths);
  }
  std::size_t metrics = 0;
  for (const auto& [type, entry] : baseline.types) metrics += entry.metrics.size();
  print_stderr_line(fmt::format("linkscope baseline: {} run(s), {} machine type(s), {} metric(s){}", runs.size(),
                                baseline.types.size(), metrics,
                                options.output_path.empty() ? "" : "; wrote " + options.output_path));
  return 0;
}

Command add_baseline_command(CLI::App& parent, const std::vector<std::string>& /*argv*/) {
  auto options = std::make_shared<BaselineOptions>();
  Command command;
  command.app = parent.add_subcommand(
      "baseline", "Build a fleet baseline from saved runs of many hosts: per machine type, the median, MAD, p5/p95 "
                  "and count of every comparable number");
  command.app->add_option("runs", options->run_paths, "saved runs (RUN.json), one or more per host");
  command.app->add_option("--output,-o", options->output_path, "the baseline file (default: standard output)")
      ->check(non_empty_path());
  command.run = [options] { return run_baseline(*options); };
  return command;
}

const CommandRegistration kRegistration{62, &add_baseline_command};

}  // namespace

}  // namespace linkscope::cli
