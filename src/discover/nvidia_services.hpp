#pragma once
#include <string>
#include <vector>

#include "discover/sysfs_root.hpp"

namespace linkscope::discover {

// The NVIDIA daemons whose presence a diagnosis needs: NVSwitch machines need Fabric Manager for NVLink (and NVLS),
// multi-node NVLink needs IMEX, persistence keeps the driver loaded. Matched by the process name in /proc/PID/comm.
const std::vector<std::string>& nvidia_service_names();

// The running NVIDIA daemons, by name, sorted and unique (a capture keeps their /proc/PID/comm files).
std::vector<std::string> running_nvidia_services(const SysfsRoot& root);

// The /proc/PID/comm paths of those daemons (what a capture copies).
std::vector<std::string> nvidia_service_comm_paths(const SysfsRoot& root);

}  // namespace linkscope::discover
