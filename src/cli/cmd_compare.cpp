// linkscope compare: what changed between two saved runs beyond noise; exit 6 when something got worse beyond
// the threshold, or when the new run lacks numbers the base run has (a cluster acceptance gate).
#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/terminal_text.hpp"
#include "diagnose/diagnose.hpp"
#include "fleet/baseline.hpp"
#include "fleet/fleet_judge.hpp"
#include "model/run_file.hpp"
#include "report/compare_runs.hpp"

namespace linkscope::cli {

namespace {

struct CompareOptions {
  std::string base_path, new_path;
  std::string threshold = "5%";
  std::string format = "text";
  std::string baseline_path;  // --baseline FILE: judge the new run against a fleet baseline too
};

int run_compare(const CompareOptions& options) {
  const double threshold = report::parse_threshold(options.threshold);
  model::Run base = model::read_run_file(options.base_path);
  model::Run current = model::read_run_file(options.new_path);
  if (!options.baseline_path.empty()) {
    const fleet::Baseline baseline = fleet::read_baseline_file(options.baseline_path);
    current.fleet = fleet::judge_against_baseline(current, baseline, options.baseline_path);
    // Its fleet finding joins the findings compared; both runs are diagnosed by this linkscope, so no other finding
    // differs only because one run was saved by an older one.
    diagnose::diagnose_into(current, false);
    diagnose::diagnose_into(base, false);
  }
  // Findings are compared too: diagnose runs that were saved without a diagnosis.
  if (!base.has_diagnosis()) diagnose::diagnose_into(base);
  if (!current.has_diagnosis()) diagnose::diagnose_into(current);
  report::Comparison comparison = report::compare_runs(base, current, threshold);
  if (!options.baseline_path.empty()) comparison.fleet = current.fleet;
  if (comparison.base_label.empty()) comparison.base_label = options.base_path;
  if (comparison.current_label.empty()) comparison.current_label = options.new_path;
  if (options.format == "json") {
    write_stdout(report::comparison_to_json(comparison).dump(2) + "\n");
  } else {
    write_text_stdout(report::render_comparison_text(comparison));
  }
  return comparison.failed() ? to_int(ExitCode::kThreshold) : 0;
}

Command add_compare_command(CLI::App& parent, const std::vector<std::string>& /*argv*/) {
  auto options = std::make_shared<CompareOptions>();
  Command command;
  command.app = parent.add_subcommand(
      "compare", "Compare two saved runs: bandwidths, latencies, busbw, findings and topology facts beyond noise");
  command.app->add_option("base", options->base_path, "the reference run (RUN.json)")->required();
  command.app->add_option("new", options->new_path, "the run to check (RUN.json)")->required();
  command.app->add_option("--threshold", options->threshold,
                          "relative change that counts as a regression, in percent (exit 6 beyond it)")
      ->capture_default_str();
  command.app->add_option("--baseline", options->baseline_path,
                          "also judge the new run against a fleet baseline (`linkscope baseline`): numbers outside "
                          "its machine type's spread fail the gate (exit 6), and so does a type the baseline lacks")
      ->check(non_empty_path());
  command.app->add_option("--format", options->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  command.run = [options] { return run_compare(*options); };
  return command;
}

const CommandRegistration kRegistration{61, &add_compare_command};

}  // namespace

}  // namespace linkscope::cli
