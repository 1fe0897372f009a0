#pragma once
#include <string>
#include <vector>

#include "cluster/host_comparison.hpp"
#include "cluster/roster.hpp"

// Which rank measures for each host in the cross-host matrix: of the host's ranks that drive a GPU, the one
// whose GPU is closest to the NIC NCCL would use (PIX before PXB, PHB, NODE, SYS; system.gpu_nics), the
// lowest rank on a tie or when the relations are unknown.
namespace linkscope::cluster {

struct Representative {
  int rank = -1;          // -1: the host has no rank with a GPU
  int cuda_device = -1;
  std::string nic;        // the GPU's closest NIC, when known
  std::string relation;   // its relation to the GPU
  std::string reason;     // why rank -1, or how the rank was chosen
};

std::vector<Representative> choose_representatives(const Roster& roster, const HostsComparison& hosts);

}  // namespace linkscope::cluster
