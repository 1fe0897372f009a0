#pragma once
// Where a command's machine facts come from: this machine (sysfs, NVML, CUDA, NCCL's topology child) or a capture
// of another one (`--capture FILE`, capture/captured_machine.hpp). Both run the same discovery, synthesis and model.
#include "capture/captured_machine.hpp"
#include "core/environment.hpp"
#include "discover/live_discovery.hpp"

namespace linkscope::cli {

using MachineDiscovery = capture::DiscoveredMachine;

// This machine. `env` already holds the --env overrides (also in options.env_overrides, for NCCL's child).
MachineDiscovery discover_this_machine(const discover::LiveDiscoveryOptions& options, Environment env);

}  // namespace linkscope::cli
