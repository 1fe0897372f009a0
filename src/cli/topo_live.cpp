#include "cli/topo_live.hpp"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "cli/machine_discovery.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/terminal_text.hpp"
#include "discover/live_discovery.hpp"
#include "discover/live_system.hpp"
#include "discover/live_model_check.hpp"
#include "model/run_file.hpp"
#include "report/topo_live_text.hpp"

namespace linkscope::cli {

namespace {

// Why the live view is incomplete as a whole, or "" when the driver and CUDA work.
std::string unavailable_reason(const discover::SystemFacts& facts) {
  if (!facts.driver.available) return "NVIDIA driver unavailable: " + facts.driver.reason;
  if (!facts.cuda.available && !facts.cuda_visible_devices) return "CUDA runtime unavailable: " + facts.cuda.reason;
  return "";
}

}  // namespace

TopoLiveResult discover_topo_live(const TopoLiveOptions& options, const std::string& dump_xml_path) {
  if (!dump_xml_path.empty()) check_output_path(dump_xml_path, "--dump-xml");
  std::vector<std::pair<std::string, std::string>> overrides;
  for (const auto& assignment : options.env_assignments) overrides.push_back(parse_env_assignment(assignment));
  MachineDiscovery machine = [&] {
    if (!options.capture_path.empty()) {
      const capture::LoadedCapture loaded = capture::load_capture(options.capture_path, Environment::from_process());
      return capture::discover_captured_machine(loaded, overrides);
    }
    discover::LiveDiscoveryOptions discovery;
    discovery.sysfs_root = options.sysfs_root;
    discovery.ask_nccl = options.ask_nccl;
    discovery.nccl_timeout_seconds = options.nccl_timeout_seconds;
    discovery.env_overrides = overrides;
    Environment env = Environment::from_process();
    for (const auto& [name, value] : overrides) env.set(name, value);
    return discover_this_machine(discovery, std::move(env));
  }();
  TopoLiveResult result{std::move(machine.env), std::move(machine.live), {}, ""};
  result.unavailable = unavailable_reason(result.live.facts);

  if (!dump_xml_path.empty()) {
    if (result.live.synthesized.xml.empty()) {
      throw DeviceError(fmt::format("no topology XML to write to {}: {}", dump_xml_path,
                                    result.unavailable.empty() ? result.live.synthesized.notes.back() : result.unavailable));
    }
    write_file_atomically(dump_xml_path, result.live.synthesized.xml);
  }
  result.check = discover::check_live_model(result.live, result.env, machine.version);
  return result;
}

int run_topo_live(const TopoLiveOptions& options, const std::vector<std::string>& argv) {
  const TopoLiveResult result = discover_topo_live(options, options.dump_xml);
  model::Run run = discover::topo_live_run(result.live, result.check, result.env, argv);
  if (!options.capture_path.empty()) run.system.capture = options.capture_path;
  if (options.format == "json") {
    write_stdout(model::run_text(run));
  } else if (options.format == "nccl-log") {
    if (!result.check.ours) throw DeviceError(result.unavailable.empty() ? result.check.reason : result.unavailable);
    write_text_stdout(result.check.ours->nccl_log);
  } else {
    write_text_stdout(report::render_topo_text(run));
  }
  if (!result.unavailable.empty()) throw DeviceError(result.unavailable);
  return 0;
}

}  // namespace linkscope::cli
