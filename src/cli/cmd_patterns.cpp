// `linkscope patterns`: concurrent copy patterns (ring, fan-in, all-to-all ...), aggregate bandwidth and scaling.
#include <algorithm>
#include <cstdio>
#include <optional>

#include <fmt/format.h>

#include "cli/cluster_per_host.hpp"
#include "cli/command.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/size.hpp"
#include "core/terminal_text.hpp"
#include "discover/cpu_list.hpp"
#include "measure/numa_sweep.hpp"
#include "plan/p2p_options.hpp"
#include "plan/pattern_spec.hpp"
#include "platform/cpu_affinity.hpp"
#include "platform/cuda_device_info.hpp"
#include "model/run_file.hpp"
#include "report/pattern_text.hpp"

namespace linkscope::cli {

namespace {

struct PatternsOptions {
  std::string presets = "all";
  std::optional<std::string> edges;  // given but empty is an error, not "none"
  std::string size = "256M";
  std::string method = "ce";
  std::optional<std::string> devices;  // given but empty is an error, not "all"
  bool numa_sweep = false;
  plan::CopyCommandOptions common;
};

void check_preset_names(const std::string& names) {
  for (const auto& name : plan::parse_word_list(names)) {
    const auto& known = plan::pattern_preset_names();
    if (name != "all" && std::find(known.begin(), known.end(), name) == known.end()) {
      throw UsageError(fmt::format("--preset: unknown pattern '{}' (known: single, bidirectional, disjoint, ring, "
                                   "fan-in, fan-out, all-to-all, all)", name));
    }
  }
}

int run_patterns_command(const PatternsOptions& o, bool preset_given, const std::vector<std::string>& argv) {
  if (const auto code = run_on_every_host(argv)) return *code;  // under mpirun/srun: once per host
  measure::PatternRequest request;
  check_preset_names(o.presets);
  std::optional<plan::PatternSpec> edges;
  if (o.edges) edges = plan::parse_edges_pattern(*o.edges);
  std::vector<int> devices;
  if (o.devices) devices = plan::parse_device_list(*o.devices);
  request.bytes = parse_size(o.size, "--size");
  if (request.bytes == 0) throw UsageError("--size 0 measures nothing");
  if (o.method == "ce") {
    request.method = plan::CopyMethod::kCe;
  } else if (o.method == "sm") {
    request.method = plan::CopyMethod::kSm;
  } else {
    throw UsageError(fmt::format("--method {}: must be ce or sm", o.method));
  }
  request.initiator = plan::initiator_of(o.common);
  const auto shapes = plan::sm_shapes(o.common);
  if (shapes.size() != 1) throw UsageError("patterns take one SM kernel shape (lists are for `p2p` tuning runs)");
  request.sm_shape = shapes.front();
  request.verify = !o.common.no_verify;
  request.sampling = plan::sampling_policy(o.common);
  request.warmup_samples = o.common.warmup_samples;
  request.seed = o.common.seed;
  request.forced_ops = o.common.forced_ops;
  plan::check_output_options(o.common);
  if (o.numa_sweep && o.common.cpu_node) throw UsageError("--numa-sweep and --cpu-node exclude each other");
  if (o.common.cpu_node) {
    platform::bind_current_thread(platform::numa_node_cpus(*o.common.cpu_node));
    request.cpu_node = o.common.cpu_node;
  }

  const int count = platform::require_cuda_devices();
  if (devices.empty()) devices = plan::first_devices(count);
  plan::check_in_range(devices, count);
  if (edges) plan::check_in_range(edges->edges, count, "--edges");
  // --edges alone runs just that pattern; with --preset as well, both.
  if (!edges || preset_given) request.plans = plan::make_presets(o.presets, devices);
  if (edges) {
    plan::PatternPlan custom;
    custom.name = edges->name;
    custom.runnable = true;
    custom.spec = *edges;
    custom.gpus_needed = static_cast<int>(plan::devices_of(edges->edges).size());
    request.plans.push_back(custom);
  }

  const auto progress = [](const std::string& line) { print_stderr_line(line); };
  const model::PatternRun result = measure::run_pattern_set(request, o.numa_sweep, progress);

  model::Run run = model::make_run("patterns", argv);
  run.environment.variables = Environment::from_process().relevant();
  run.measurements.patterns = result;
  bool timeout = false, error = false;
  for (const auto& p : result.patterns) {
    timeout = timeout || p.status == model::PointStatus::kTimeout;
    error = error || p.status == model::PointStatus::kError;
    if (p.status == model::PointStatus::kTimeout || p.status == model::PointStatus::kError ||
        p.status == model::PointStatus::kWrong) {
      run.record_error(fmt::format("pattern {}", p.name), p.reason);
    }
  }
  if (!o.common.output.empty()) model::write_run_file(o.common.output, run);
  if (o.common.format == "json") {
    write_stdout(model::run_text(run));
  } else {
    write_text_stdout(report::render_patterns_text(result));
  }
  if (model::total_wrong(result.patterns) > 0) return to_int(ExitCode::kWrongResults);
  if (timeout) return to_int(ExitCode::kTimeout);
  if (error) return to_int(ExitCode::kDevice);
  return to_int(ExitCode::kOk);
}

Command add_patterns_command(CLI::App& parent, const std::vector<std::string>& argv) {
  auto options = std::make_shared<PatternsOptions>();
  Command command;
  command.app = parent.add_subcommand(
      "patterns", "Concurrent copy patterns (ring, disjoint pairs, fan-in/out, all-to-all): aggregate GB/s and scaling");
  auto* app = command.app;
  auto* preset = app->add_option("--preset", options->presets,
                                 "single, bidirectional, disjoint, ring, fan-in, fan-out, all-to-all, or all (default)");
  app->add_option("--edges", options->edges, "A pattern of your own: directed edges SRC>DST, e.g. \"0>1,2>3\"");
  app->add_option("-b,--size", options->size, "Bytes per edge and copy (default 256M)");
  app->add_option("--method", options->method, "ce (default) or sm");
  app->add_option("-d,--devices", options->devices, "GPUs the presets use, in order, e.g. 0,1,2,3 (default: all)");
  app->add_flag("--numa-sweep", options->numa_sweep,
                "Repeat the patterns submitted from each NUMA node; report the largest relative difference");
  plan::add_copy_command_options(*app, options->common);
  app->get_option("--output")->check(non_empty_path());
  command.run = [options, preset, argv] { return run_patterns_command(*options, preset->count() > 0, argv); };
  return command;
}

const CommandRegistration kRegistration{31, &add_patterns_command};

}  // namespace

}  // namespace linkscope::cli
