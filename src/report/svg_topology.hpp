#pragma once
#include <string>

#include "model/run.hpp"

namespace linkscope::report {

// A drawing of the machine: CPUs (NUMA domains) at the bottom, PCIe switches above them, GPUs and NICs on top,
// the NVSwitch fabric (or direct NVLinks) above the GPUs, network devices beside their NICs. Drawn from NCCL's
// model (`model.nodes` / `model.links`, with NCCL's link weights) when present, else from `system` (GPUs, NVLink,
// NUMA nodes, NICs). Empty string when neither has GPUs.
std::string render_topology_svg(const model::Run& run);

}  // namespace linkscope::report
