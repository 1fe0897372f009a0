#include "cli/topo_live.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/run.hpp"
#include "discover/live_discovery.hpp"
#include "discover/live_json.hpp"
#include "discover/live_model_check.hpp"
#include "discover/nvml_source.hpp"
#include "platform/cuda_facts.hpp"
#include "report/topo_live_text.hpp"

namespace linkscope::cli {

namespace {

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw Error(ExitCode::kUsage, fmt::format("cannot write {}", path));
}

// Why the live view is incomplete as a whole, or "" when the driver and CUDA work.
std::string unavailable_reason(const discover::SystemFacts& facts) {
  if (!facts.driver.available) return "NVIDIA driver unavailable: " + facts.driver.reason;
  if (!facts.cuda.available && !facts.cuda_visible_devices) return "CUDA runtime unavailable: " + facts.cuda.reason;
  return "";
}

}  // namespace

int run_topo_live(const TopoLiveOptions& options, const std::vector<std::string>& argv) {
  Environment env = Environment::from_process();
  discover::LiveDiscoveryOptions discovery;
  discovery.sysfs_root = options.sysfs_root;
  discovery.ask_nccl = options.ask_nccl;
  discovery.nccl_timeout_seconds = options.nccl_timeout_seconds;
  for (const auto& assignment : options.env_assignments) {
    const auto [name, value] = parse_env_assignment(assignment);
    env.set(name, value);
    discovery.env_overrides.emplace_back(name, value);
  }
  const char* nvml_library = std::getenv("LINKSCOPE_NVML_LIBRARY");
  auto nvml = discover::make_nvml_library_source(nvml_library != nullptr ? nvml_library : "");
  auto cuda = platform::make_cuda_runtime_source();
  const discover::LiveDiscovery live = discover::discover_live(*nvml, *cuda, env, discovery);
  const std::string unavailable = unavailable_reason(live.facts);

  if (!options.dump_xml.empty()) {
    if (live.synthesized.xml.empty()) {
      throw DeviceError(fmt::format("no topology XML to write to {}: {}", options.dump_xml,
                                    unavailable.empty() ? live.synthesized.notes.back() : unavailable));
    }
    write_text_file(options.dump_xml, live.synthesized.xml);
  }
  const discover::LiveModelCheck check = discover::check_live_model(live, env);

  if (options.format == "json") {
    fmt::print("{}\n", run_to_json(discover::topo_live_run(live, check, env, argv)).dump(2));
  } else if (options.format == "nccl-log") {
    if (!check.ours) throw DeviceError(unavailable.empty() ? check.reason : unavailable);
    fmt::print("{}", check.ours->nccl_log);
  } else if (!live.facts.driver.available) {
    fmt::print("{}", report::render_sysfs_only_text(live.facts));
  } else {
    fmt::print("{}", report::render_topo_live_text(live, check));
  }
  std::fflush(stdout);
  if (!unavailable.empty()) throw DeviceError(unavailable);
  return 0;
}

}  // namespace linkscope::cli
