#pragma once
#include <string>
#include <vector>

#include "discover/pci_tree.hpp"
#include "discover/sysfs_root.hpp"
#include "model/host_evidence.hpp"

// The bridges and switch ports peer traffic crosses between each GPU pair and each GPU-NIC pair, and their ACS and
// ATS registers from config space (what `lspci -vvv` prints as ACSCap/ACSCtl and ATSCtl).
namespace linkscope::discover {

struct PcieEndpoint {
  std::string pci_bdf;
  std::string nic;  // the RDMA device name; empty for a GPU
};

struct PciePathEvidence {
  std::vector<model::PciFunctionEvidence> functions;  // the endpoints, then every port on a path
  std::vector<model::PciPath> paths;
};

// The ports between `a` and `b` that they do not share (a's side going up, then b's side going down).
std::vector<std::string> ports_between(const PciTree& pci, const PciDevice& a, const PciDevice& b);

// One function's ACS/ATS from its config file; the reason when the extended space could not be read.
model::PciFunctionEvidence pci_function_evidence(const SysfsRoot& root, const PciDevice& device, std::string role);

// Every GPU pair, every GPU x NIC; endpoints not in the PCI tree are left out.
PciePathEvidence read_pcie_paths(const SysfsRoot& root, const PciTree& pci, const std::vector<std::string>& gpus,
                                 const std::vector<PcieEndpoint>& nics);

}  // namespace linkscope::discover
