// `linkscope p2p`: copy bandwidth curves for directed GPU pairs (CE and SM), latency, host copies.
#include <cstdio>
#include <optional>

#include <fmt/format.h>

#include "cli/cluster_per_host.hpp"
#include "cli/command.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/size.hpp"
#include "core/sweep.hpp"
#include "core/terminal_text.hpp"
#include "discover/cpu_list.hpp"
#include "measure/p2p_engine.hpp"
#include "plan/nvbandwidth_testcases.hpp"
#include "plan/p2p_options.hpp"
#include "plan/pair_spec.hpp"
#include "platform/cpu_affinity.hpp"
#include "platform/cuda_device_info.hpp"
#include "model/run_file.hpp"
#include "report/nvbandwidth_text.hpp"
#include "report/p2p_text.hpp"

namespace linkscope::cli {

namespace {

struct P2pOptions {
  std::string min_bytes = "1K", max_bytes = "1G", step_bytes;
  double step_factor = 4;
  std::optional<std::string> pairs, devices;  // given but empty is an error, not "all"
  std::string method = "both";
  bool bidirectional = false;
  bool allow_staged = false;
  std::string measure = "copy,latency,host";
  std::string host_size;
  std::vector<std::string> testcases;
  bool list_testcases = false;
  std::string buffer_size;
  plan::CopyCommandOptions common;
  plan::P2pTuningOptions tuning;
};

std::vector<plan::CopyMethod> methods_of(const std::string& method) {
  if (method == "ce") return {plan::CopyMethod::kCe};
  if (method == "sm") return {plan::CopyMethod::kSm};
  if (method == "both") return {plan::CopyMethod::kCe, plan::CopyMethod::kSm};
  throw UsageError(fmt::format("--method {}: must be ce, sm or both", method));
}

void apply_measure_list(const std::string& text, plan::P2pRequest& request) {
  request.measure_copy = request.measure_latency = request.measure_host = false;
  for (const auto& word : plan::parse_word_list(text)) {
    if (word == "copy") {
      request.measure_copy = true;
    } else if (word == "latency") {
      request.measure_latency = true;
    } else if (word == "host") {
      request.measure_host = true;
    } else {
      throw UsageError(fmt::format("--measure: unknown part '{}' (expected copy, latency, host)", word));
    }
  }
  if (!request.measure_copy && !request.measure_latency && !request.measure_host) {
    throw UsageError("--measure names nothing to measure (expected copy, latency, host)");
  }
}

// Binds the submitting thread before CUDA starts, so the driver's threads inherit the binding.
std::string bind_cpu_node(std::optional<int> node) {
  if (!node) return {};
  const auto cpus = platform::numa_node_cpus(*node);
  platform::bind_current_thread(cpus);
  return format_cpu_list(cpus);
}

int exit_code_for(bool wrong, bool timeout, bool error) {
  if (wrong) return to_int(ExitCode::kWrongResults);
  if (timeout) return to_int(ExitCode::kTimeout);
  if (error) return to_int(ExitCode::kDevice);
  return to_int(ExitCode::kOk);
}

// The options that shape curves, latency and host copies; nvbandwidth's testcases define their own copies.
constexpr const char* kCurveOptions[] = {"--pairs", "--bidirectional", "--measure", "--host-size", "--method",
                                         "--allow-staged", "--mode", "--minbytes", "--maxbytes", "--stepfactor",
                                         "--stepbytes"};

// --testcase / --list-testcases / --buffer-size: checked without a GPU (exit 2).
void apply_testcase_options(const P2pOptions& o, const CLI::App& app, plan::P2pRequest& request) {
  if (o.testcases.empty()) {
    if (!o.buffer_size.empty()) throw UsageError("--buffer-size applies to --testcase only (curves use -b/-e)");
    return;
  }
  for (const char* option : kCurveOptions) {
    if (app.count(option) > 0) {
      throw UsageError(fmt::format("{} does not apply to --testcase (nvbandwidth's testcases define their copies; "
                                   "-d/--devices picks the GPUs, --buffer-size the bytes)", option));
    }
  }
  for (const auto* testcase : plan::select_testcases(o.testcases)) request.testcases.push_back(testcase->name);
  if (!o.buffer_size.empty()) {
    request.testcase_bytes = parse_size(o.buffer_size, "--buffer-size");
    if (request.testcase_bytes == 0 || request.testcase_bytes % 16 != 0) {
      throw UsageError(fmt::format("--buffer-size {}: must be a positive multiple of 16 bytes", o.buffer_size));
    }
  }
}

int run_p2p_command(const P2pOptions& o, const CLI::App& app, const std::vector<std::string>& argv) {
  if (o.list_testcases) {
    write_text_stdout(plan::list_testcases_text());
    return to_int(ExitCode::kOk);
  }
  if (const auto code = run_on_every_host(argv)) return *code;  // under mpirun/srun: once per host
  // Everything that can be checked without a GPU first (exit 2), then the driver (exit 3).
  plan::P2pRequest request;
  SweepSpec sweep;
  sweep.min_bytes = parse_size(o.min_bytes, "minimum size (-b)");
  sweep.max_bytes = parse_size(o.max_bytes, "maximum size (-e)");
  sweep.step_factor = o.step_factor;
  sweep.step_bytes = o.step_bytes.empty() ? 0 : parse_size(o.step_bytes, "step size (-i)");
  if (!o.step_bytes.empty()) sweep.step_factor = 1;
  request.sizes = sweep_sizes(sweep);
  if (request.sizes.front() == 0) throw UsageError("a copy of 0 bytes measures nothing; use -b 1 or more");
  std::vector<plan::DirectedPair> pairs;
  if (o.pairs) pairs = plan::parse_pairs(*o.pairs);
  std::vector<int> devices;
  if (o.devices) devices = plan::parse_device_list(*o.devices);
  request.methods = methods_of(o.method);
  request.initiator = plan::initiator_of(o.common);
  request.bidirectional = o.bidirectional;
  request.allow_staged = o.allow_staged;
  request.verify = !o.common.no_verify;
  apply_measure_list(o.measure, request);
  if (!o.host_size.empty()) {
    request.host_bytes = parse_size(o.host_size, "--host-size");
    if (request.host_bytes == 0) throw UsageError("--host-size 0 measures nothing");
  }
  request.sampling = plan::sampling_policy(o.common);
  request.warmup_samples = o.common.warmup_samples;
  request.seed = o.common.seed;
  request.forced_ops = o.common.forced_ops;
  request.sm_shapes = plan::sm_shapes(o.common);
  request.chase_specs = plan::chase_specs(o.tuning);
  request.span_sync = plan::span_sync_from_string(o.tuning.span_sync);
  plan::check_output_options(o.common);
  request.cpu_node = o.common.cpu_node;
  apply_testcase_options(o, app, request);
  request.cpu_list = bind_cpu_node(o.common.cpu_node);

  const int count = platform::require_cuda_devices();
  std::vector<std::string> notes;
  if (devices.empty()) devices = plan::first_devices(count);
  plan::check_in_range(devices, count);
  if (!request.testcases.empty()) {
    request.testcase_gpus = devices;
  } else if (pairs.empty()) {
    pairs = plan::all_directed_pairs(devices);
    if (devices.size() == 1) {
      notes.push_back(fmt::format("only one GPU ({}): nothing to pair; measured its local copy", devices.front()));
    }
  } else {
    plan::check_in_range(pairs, count);
  }
  request.pairs = pairs;

  const auto progress = [](const std::string& line) { print_stderr_line(line); };
  for (const auto& note : notes) progress("note: " + note);
  model::P2pResults results = measure::run_p2p(request, progress);
  results.notes.insert(results.notes.begin(), notes.begin(), notes.end());

  model::Run run = model::make_run("p2p", argv);
  run.environment.variables = Environment::from_process().relevant();
  for (const auto& p : results.points) {
    if (p.status != model::PointStatus::kOk && p.status != model::PointStatus::kNa) {
      run.record_error(fmt::format("p2p {} {}>{} {}", p.method, p.src, p.dst, format_size(p.bytes)), p.reason);
    }
  }
  for (const auto& l : results.latency) {
    if (l.status == model::PointStatus::kError || l.status == model::PointStatus::kTimeout) {
      run.record_error(fmt::format("latency {} {}>{}", l.method, l.src, l.dst), l.reason);
    }
  }
  for (const auto& h : results.host) {
    if (h.status != model::PointStatus::kOk && h.status != model::PointStatus::kNa) {
      run.record_error(fmt::format("host {} GPU {}", h.direction, h.gpu), h.reason);
    }
  }
  for (const auto& t : results.testcases) {
    for (const auto& c : t.cells) {
      if (c.status == model::PointStatus::kError || c.status == model::PointStatus::kTimeout) {
        run.record_error(fmt::format("testcase {} cell [{},{}]", t.name, c.row, c.column), c.reason);
      }
    }
  }
  run.measurements.p2p = results;
  if (!o.common.output.empty()) model::write_run_file(o.common.output, run);
  const std::string text = request.testcases.empty() ? report::render_p2p_text(results)
                                                     : report::render_testcases_text(results.testcases);
  if (o.common.format == "json") {
    write_stdout(model::run_text(run));
  } else {
    write_text_stdout(text);
  }
  return exit_code_for(model::total_wrong(results) > 0, model::any_status(results, model::PointStatus::kTimeout),
                       model::any_status(results, model::PointStatus::kError));
}

Command add_p2p_command(CLI::App& parent, const std::vector<std::string>& argv) {
  auto options = std::make_shared<P2pOptions>();
  Command command;
  command.app = parent.add_subcommand(
      "p2p", "Copy bandwidth and latency between GPU pairs (copy engine and SM kernels), verified, with curves");
  auto* app = command.app;
  app->add_option("-b,--minbytes", options->min_bytes, "Smallest copy (default 1K)");
  app->add_option("-e,--maxbytes", options->max_bytes, "Largest copy (default 1G)");
  app->add_option("-f,--stepfactor", options->step_factor, "Multiply the size by this (default 4)");
  app->add_option("-i,--stepbytes", options->step_bytes, "Add this many bytes instead of multiplying");
  app->add_option("--pairs", options->pairs, "Directed pairs SRC>DST, e.g. 0>1,2>3 (default: all; SRC=DST: local copy)");
  app->add_option("-d,--devices", options->devices, "GPUs for the default pairs, e.g. 0,1,3 (default: all)");
  app->add_option("--method", options->method, "ce (copy engine), sm (kernel) or both (default)");
  app->add_flag("--bidirectional", options->bidirectional,
                "Both directions of each pair at once: per direction and total over one shared window");
  app->add_flag("--allow-staged", options->allow_staged, "Without peer access, measure host-staged copies instead of N/A");
  app->add_option("--measure", options->measure, "Parts to measure: copy,latency,host (default all three)");
  app->add_option("--host-size", options->host_size, "Size of host<->GPU copies (default: largest size, at most 256M)");
  app->add_option("--testcase", options->testcases,
                  "Run this nvbandwidth testcase (repeatable; exactly these, nothing else; see --list-testcases)")
      ->allow_extra_args(false);
  app->add_flag("--list-testcases", options->list_testcases, "List nvbandwidth's testcases that --testcase runs");
  app->add_option("--buffer-size", options->buffer_size, "Bytes per copy of --testcase (default 512M, as nvbandwidth)");
  plan::add_copy_command_options(*app, options->common);
  app->get_option("--output")->check(non_empty_path());
  plan::add_p2p_tuning_options(*app, options->tuning);
  command.run = [options, argv, app] { return run_p2p_command(*options, *app, argv); };
  return command;
}

const CommandRegistration kRegistration{30, &add_p2p_command};

}  // namespace

}  // namespace linkscope::cli
