// `linkscope ladder`: the same collective with paths taken away and algorithms forced, each layer in its own
// process (NCCL reads its variables once per process): default, the best NCCL_P2P_LEVEL, P2P disabled,
// P2P and SHM disabled (network path), NCCL_ALGO=Ring and =Tree. Prints the transport NCCL really used,
// busbw at the largest size, the path's theoretical peak, efficiency and slowdown against the best layer.
#include <cstdio>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/cluster_per_host.hpp"
#include "cli/command.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/subprocess.hpp"
#include "core/terminal_text.hpp"
#include "plan/collective_options.hpp"
#include "model/collectives.hpp"
#include "platform/cuda_resources.hpp"
#include "model/link_rate.hpp"
#include "model/run_file.hpp"
#include "plan/ladder_plan.hpp"
#include "report/ladder_table.hpp"
#include "runtime/nccl_log.hpp"

namespace linkscope::cli {

namespace {

struct LadderState {
  coll::CollOptions options;  // op, sizes, type, reduction, timeout, max time
  std::optional<int> gpus;
  std::string system_file;
  std::string format = "text";
  std::string output_file;
  std::vector<std::string> argv;
  CLI::App* app = nullptr;
};

// What one layer's child process reported.
struct ChildRun {
  std::optional<model::CollectiveSeries> series;
  std::optional<model::RuntimeRun> runtime_run;  // the child's first runtime run
};

std::vector<std::string> child_args(const LadderState& s, int gpus) {
  const auto& o = s.options;
  std::vector<std::string> args{"coll", o.op, "-b", o.min_bytes, "-e", o.max_bytes, "-i", o.step_bytes,
                                "-f", fmt::format("{}", o.step_factor), "-g", std::to_string(gpus), "-d", o.datatype,
                                "-o", o.redop, "--timeout", fmt::format("{}", o.timeout_s), "--format", "json", "-q"};
  if (o.max_time_s) {
    args.push_back("--max-time");
    args.push_back(fmt::format("{}", *o.max_time_s));
  }
  return args;
}

// Runs one layer in a child linkscope and fills the layer from its Run document.
ChildRun run_layer(const LadderState& s, int gpus, model::LadderLayer& layer) {
  ChildSpec spec;
  spec.args = child_args(s, gpus);
  for (const auto& [name, value] : layer.env) spec.set_env.push_back(name + "=" + value);
  // The child has its own --timeout for hung collectives; this bound only catches a child that hangs elsewhere.
  spec.timeout_seconds = s.options.timeout_s > 0 ? s.options.timeout_s * 4 + 120 : 0;
  const ChildResult child = run_child(spec);
  ChildRun out;
  if (child.timed_out) {
    layer.status = "timeout";
    layer.reason = fmt::format("the child process did not finish within {:g} s and was killed", spec.timeout_seconds);
    return out;
  }
  if (child.exit_code != 0) {
    layer.status = child.exit_code == to_int(ExitCode::kTimeout) ? "timeout" : "error";
    layer.reason = fmt::format("exit {}: {}", child.exit_code, last_line(child.err));
  }
  if (child.out.empty()) {
    if (layer.status == "ok") {
      layer.status = "error";
      layer.reason = "the child printed no result";
    }
    return out;
  }
  try {
    const model::Run run = model::parse_run_text(child.out, "ladder layer " + layer.name);
    if (run.measurements.collectives && !run.measurements.collectives->empty()) {
      out.series = run.measurements.collectives->front();
    }
    if (!run.runtime.runs.empty()) out.runtime_run = run.runtime.runs.front();
  } catch (const std::exception& e) {
    layer.status = "error";
    layer.reason = fmt::format("unreadable child output: {}", e.what());
    return out;
  }
  if (out.series) {
    if (const auto* point = model::largest_measured_point(*out.series)) {
      layer.busbw_gbps = point->busbw_gbps;
      layer.bytes = point->bytes;
      layer.wrong = point->wrong;
    }
  }
  if (out.runtime_run && out.runtime_run->recorded) {
    layer.transport = model::dominant_transport(out.runtime_run->info);
    for (const auto& t : model::transport_summary(out.runtime_run->info)) {
      layer.transports += fmt::format("{}{} ({})", layer.transports.empty() ? "" : ", ", t.label, t.connections);
    }
  } else if (out.runtime_run) {
    layer.peak.reason = out.runtime_run->reason.empty() ? "runtime layer not recorded" : out.runtime_run->reason;
  }
  return out;
}

int run_ladder(LadderState& s) {
  // The same validation as `coll` (op, type, reduction, sizes).
  coll::CollOptions check = s.options;
  check.format = coll::OutputFormat::kJson;
  if (s.gpus) check.gpus = *s.gpus;  // coll's range for -g, checked before any GPU is asked for
  const coll::CollPlan plan = coll::make_coll_plan(check);
  const Environment env = Environment::from_process();
  // Input files before any GPU work: a bad --system is a usage error (exit 2), not a device failure.
  model::System system;
  if (!s.system_file.empty()) system = model::read_run_file(s.system_file).system;
  if (!s.output_file.empty()) check_output_path(s.output_file, "--output");
  if (const auto code = run_on_every_host(s.argv)) return *code;  // under mpirun/srun: once per host
  int gpus = s.gpus.value_or(0);
  if (!s.gpus) {
    const char* reason = nullptr;
    gpus = platform::cuda_device_count_or_zero(&reason);
    if (gpus == 0) {
      throw DeviceError(fmt::format("no usable CUDA GPU ({}); is the NVIDIA driver installed and a GPU visible?",
                                    reason != nullptr ? reason : "none found"));
    }
  } else if (const int visible = platform::cuda_device_count_or_zero(); visible > 0 && gpus > visible) {
    throw UsageError(fmt::format("invalid -g {}: {} GPU(s) visible", gpus, visible));
  }
  model::Ladder ladder;
  ladder.op = std::string(coll::op_name(plan.op));
  ladder.dtype = std::string(coll::type_name(plan.types.front()));
  ladder.nranks = gpus;
  ladder.layers = plan::ladder_layers(std::nullopt);
  std::vector<int> ordinals;
  for (int g = 0; g < gpus; ++g) ordinals.push_back(g);

  model::Run doc = model::make_run("ladder", s.argv);
  doc.system = system;
  doc.environment.variables = env.relevant();
  std::vector<model::CollectiveSeries> collectives;
  for (std::size_t i = 0; i < ladder.layers.size(); ++i) {
    auto& layer = ladder.layers[i];
    if (layer.status == "skipped") continue;
    if (!s.options.quiet) {
      std::string env_text;
      for (const auto& [name, value] : layer.env) env_text += fmt::format(" {}={}", name, value);
      print_stderr_line(fmt::format("linkscope: ladder layer {}{} ...", layer.name, env_text));
    }
    ChildRun child = run_layer(s, gpus, layer);
    if (child.series) {
      child.series->env = layer.env;
      collectives.push_back(*child.series);
    }
    if (child.runtime_run) {
      child.runtime_run->context = "ladder " + layer.name;
      doc.runtime.runs.push_back(*child.runtime_run);
    }
    layer.peak = layer.transport ? model::path_peak(system, *layer.transport, ordinals)
                                 : model::PathPeak{std::nullopt, "", layer.peak.reason.empty() ? "transport unknown"
                                                                                                : layer.peak.reason};
    if (layer.status != "ok") doc.record_error("ladder " + layer.name, layer.reason.value_or(""));
    if (i == 0 && layer.status != "ok" && !layer.busbw_gbps) {
      // Without a working default there is nothing to compare against; do not repeat the failure five times.
      for (std::size_t j = 1; j < ladder.layers.size(); ++j) {
        ladder.layers[j].status = "skipped";
        ladder.layers[j].reason = "the default layer failed";
      }
      break;
    }
    if (i == 0) {
      // NCCL's own GPU-to-GPU path type decides the best P2P level for the next layer.
      const auto level = child.runtime_run ? runtime::widest_gpu_path_type(child.runtime_run->info) : std::nullopt;
      if (level) {
        ladder.layers[1].env = {{"NCCL_P2P_LEVEL", *level}};
        ladder.layers[1].status = "ok";
        ladder.layers[1].reason.reset();
      }
    }
  }
  model::finish_ladder(ladder);
  doc.measurements.ladder = ladder;
  doc.measurements.collectives = collectives;

  if (s.format == "json") {
    write_stdout(model::run_text(doc));
  } else {
    write_text_stdout(report::render_ladder_table(ladder));
    if (!system.present) {
      write_stdout("# peaks need hardware facts: pass --system FILE (a Run document with a `system` section)\n");
    }
  }
  if (!s.output_file.empty()) model::write_run_file(s.output_file, doc);

  const auto& base = ladder.layers.front();
  for (const auto& layer : ladder.layers) {
    if (layer.wrong.value_or(0) > 0) return to_int(ExitCode::kWrongResults);
  }
  if (base.status == "timeout") return to_int(ExitCode::kTimeout);
  if (base.status != "ok") return to_int(ExitCode::kDevice);
  return 0;
}

Command add_ladder_command(CLI::App& parent, const std::vector<std::string>& argv) {
  auto state = std::make_shared<LadderState>();
  state->argv = argv;
  auto& o = state->options;
  o.min_bytes = "1M";
  o.max_bytes = "512M";
  CLI::App* app = parent.add_subcommand(
      "ladder", "The same collective with paths taken away (P2P, SHM) and algorithms forced, one process per layer: "
                "transport, busbw, path peak, efficiency, slowdown");
  state->app = app;
  app->add_option("op", o.op, "collective (as for coll)")->capture_default_str();
  app->add_option("-b,--minbytes", o.min_bytes, "smallest size")->capture_default_str();
  app->add_option("-e,--maxbytes", o.max_bytes, "largest size (busbw is reported here)")->capture_default_str();
  app->add_option("-i,--stepbytes", o.step_bytes, "additive step when -f is 1")->capture_default_str();
  app->add_option("-f,--stepfactor", o.step_factor, "multiplicative step")->capture_default_str();
  app->add_option("-g,--ngpus", state->gpus, "GPUs (default: all visible)");
  app->add_option("-d,--datatype", o.datatype, "data type")->capture_default_str();
  app->add_option("-o,--op", o.redop, "reduction")->capture_default_str();
  app->add_option("-T,--timeout", o.timeout_s, "per layer: abort a collective that makes no progress for this long")
      ->capture_default_str();
  app->add_option("--max-time", o.max_time_s, "adaptive sampling budget per size and layer (seconds)");
  app->add_option("--system", state->system_file,
                  "Run document whose `system` section gives the hardware facts for peaks")
      ->check(non_empty_path());
  app->add_option("--format", state->format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  app->add_option("--output", state->output_file, "also write the Run document (JSON) to this file")
      ->check(non_empty_path());
  app->add_flag("-q,--quiet", o.quiet, "no progress lines on stderr");

  Command command;
  command.app = app;
  command.run = [state] { return run_ladder(*state); };
  return command;
}

const CommandRegistration kRegistration{41, &add_ladder_command};

}  // namespace

}  // namespace linkscope::cli
