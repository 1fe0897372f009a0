#pragma once
// NCCL flattens two-level Broadcom PEX switches (topo.cc ncclTopoFlattenBcmSwitches): the sub-switches
// under a Gen4 PEX88xxx or Gen5 PEX89xxx disappear and their children hang directly under the top switch.
#include <cstdint>

#include "topo/topo_types.hpp"

namespace linkscope::topo {

// 4 for a Gen4 PEX88xxx (any level), 5 for a Gen5 PEX89xxx at this level (subsystem 0x0XXX at level 0,
// 0x1XXX at level 1), else 0. `device` is NCCL's (vendor<<48)+(device<<32)+(subvendor<<16)+subdevice.
int broadcom_switch_generation(uint64_t device, int level);

void flatten_broadcom_switches(TopoSystem& system);

}  // namespace linkscope::topo
