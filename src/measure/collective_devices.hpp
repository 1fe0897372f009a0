#pragma once
#include <vector>

#include "measure/collective_process_group.hpp"
#include "measure/nccl_communicators.hpp"
#include "model/collectives.hpp"

namespace linkscope::measure {

// CUDA ordinal, PCI address, UUID and name of every GPU this process drives, with its rank, host and pid.
std::vector<model::DeviceRecord> local_device_records(const NcclCommunicators& comms);

// Every process's records (`mine` from each) in rank order at process 0 (empty elsewhere).
std::vector<model::DeviceRecord> gather_device_records(const std::vector<model::DeviceRecord>& mine, ProcessGroup& group);

}  // namespace linkscope::measure
