#include "cli/machine_discovery.hpp"

#include <cstdlib>

#include "cli/model_version_option.hpp"
#include "discover/nvml_source.hpp"
#include "platform/cuda_facts.hpp"

namespace linkscope::cli {

MachineDiscovery discover_this_machine(const discover::LiveDiscoveryOptions& options, Environment env) {
  const char* nvml_library = std::getenv("LINKSCOPE_NVML_LIBRARY");
  auto nvml = discover::make_nvml_library_source(nvml_library != nullptr ? nvml_library : "");
  auto cuda = platform::make_cuda_runtime_source();
  discover::LiveDiscovery live = discover::discover_live(*nvml, *cuda, env, options);
  topo::ModelledVersion version = live_model_version(live);
  return {std::move(env), std::move(live), std::move(version)};
}

}  // namespace linkscope::cli
