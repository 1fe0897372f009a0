#pragma once
#include <string>
#include <vector>

#include "cluster/host_report.hpp"

// One host's facts reduced to the traits that should be equal on identical machines: driver, CUDA, NCCL, GPU count
// and models, NVLinks, PCIe widths, NICs and their link states, the closest NIC of each GPU, the CPU.
namespace linkscope::cluster {

struct HostTrait {
  std::string key;    // "driver"
  std::string label;  // "NVIDIA driver"
  std::string value;  // "580.159.04"
};

// Always the same keys in the same order. Facts a host could not read are spelled "unknown (<reason>)", so two hosts
// that both miss a fact still compare equal.
std::vector<HostTrait> host_traits(const HostReport& host);

}  // namespace linkscope::cluster
