#pragma once
// A loaded capture through the live discovery: its recorded NVML, CUDA and NCCL answers as the sources, its files as
// the sysfs root, its NCCL_*/CUDA_* variables (with --env over them) as the environment, and the NCCL release it
// ran. The same joining, synthesis, model and Run as on the captured machine itself.
#include <string>
#include <utility>
#include <vector>

#include "capture/capture_file.hpp"
#include "core/environment.hpp"
#include "discover/live_discovery.hpp"
#include "model/run.hpp"
#include "topo/nccl_versions.hpp"

namespace linkscope::capture {

// What discovery found on a machine, the environment it modelled NCCL with and the NCCL release modelled.
struct DiscoveredMachine {
  Environment env;
  discover::LiveDiscovery live;
  topo::ModelledVersion version;
};

using EnvOverrides = std::vector<std::pair<std::string, std::string>>;

// The capture's NCCL release: what its topology child loaded, else the libnccl it would open, else the newest.
topo::ModelledVersion capture_model_version(const Capture& capture);

DiscoveredMachine discover_captured_machine(const LoadedCapture& loaded, const EnvOverrides& env_overrides);

// The Run `linkscope topo --format json` would have written on the captured machine, plus the capture's name and
// the libnccl it would load (environment.nccl_*), as the doctor records them before measuring.
model::Run captured_run(const LoadedCapture& loaded, const EnvOverrides& env_overrides,
                        const std::vector<std::string>& argv);

}  // namespace linkscope::capture
