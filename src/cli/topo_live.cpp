#include "cli/topo_live.hpp"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "cli/model_version_option.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/terminal_text.hpp"
#include "discover/live_discovery.hpp"
#include "discover/live_system.hpp"
#include "discover/live_model_check.hpp"
#include "discover/nvml_source.hpp"
#include "platform/cuda_facts.hpp"
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
  TopoLiveResult result{Environment::from_process(), {}, {}, ""};
  discover::LiveDiscoveryOptions discovery;
  discovery.sysfs_root = options.sysfs_root;
  discovery.ask_nccl = options.ask_nccl;
  discovery.nccl_timeout_seconds = options.nccl_timeout_seconds;
  for (const auto& assignment : options.env_assignments) {
    const auto [name, value] = parse_env_assignment(assignment);
    result.env.set(name, value);
    discovery.env_overrides.emplace_back(name, value);
  }
  const char* nvml_library = std::getenv("LINKSCOPE_NVML_LIBRARY");
  auto nvml = discover::make_nvml_library_source(nvml_library != nullptr ? nvml_library : "");
  auto cuda = platform::make_cuda_runtime_source();
  result.live = discover::discover_live(*nvml, *cuda, result.env, discovery);
  result.unavailable = unavailable_reason(result.live.facts);

  if (!dump_xml_path.empty()) {
    if (result.live.synthesized.xml.empty()) {
      throw DeviceError(fmt::format("no topology XML to write to {}: {}", dump_xml_path,
                                    result.unavailable.empty() ? result.live.synthesized.notes.back() : result.unavailable));
    }
    write_file_atomically(dump_xml_path, result.live.synthesized.xml);
  }
  result.check = discover::check_live_model(result.live, result.env, live_model_version(result.live));
  return result;
}

int run_topo_live(const TopoLiveOptions& options, const std::vector<std::string>& argv) {
  const TopoLiveResult result = discover_topo_live(options, options.dump_xml);
  const model::Run run = discover::topo_live_run(result.live, result.check, result.env, argv);
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
