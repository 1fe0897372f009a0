#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json_read.hpp"

// The Run's `system.host_evidence`: what sysfs and procfs say about the plumbing NCCL's gates depend on (PCIe ACS
// and ATS on GPU paths, the IOMMU, GPUDirect RDMA peer memory and dma-buf, virtualization), read host-only through
// the sysfs root (docs/run-schema.md, "### system.host_evidence"). Rules read it (src/diagnose/rule_*.cpp).
namespace linkscope::model {

// ACS registers of one function (PCIe base spec 7.7.8), bits named as `lspci -vvv` names them.
struct PcieAcs {
  int offset = 0;                       // config-space offset of the capability (setpci's ECAP_ACS)
  std::vector<std::string> capability;  // "SrcValid", "TransBlk", "ReqRedir", "CmpltRedir", "UpstreamFwd", ...
  std::vector<std::string> control;     // the bits enabled, same names
  bool redirects() const;               // ReqRedir or CmpltRedir enabled: peer requests go up to the root complex
};

struct PcieAts {
  int offset = 0;
  bool enabled = false;  // ATS control bit 15
};

// One PCI function on a GPU path: a GPU, an RDMA NIC, or a bridge/switch port between them.
struct PciFunctionEvidence {
  std::string pci_bdf;
  std::string role;  // "gpu", "nic", "root-port", "switch-port"
  std::optional<std::string> vendor, device;
  // False with the reason when the config file held only the 64-byte header (not root) or was missing; the
  // capabilities below are then unknown, not absent.
  bool extended_config = false;
  std::string extended_config_reason;
  std::optional<PcieAcs> acs;
  std::optional<PcieAts> ats;
  nlohmann::json extra;
};

// The ports peer traffic between a GPU and another GPU or a NIC crosses when it does not turn at a common switch:
// the ancestors of each end that the other end does not share.
struct PciPath {
  std::string from_bdf, to_bdf;    // from: a GPU; to: a GPU or a NIC
  std::optional<std::string> nic;  // the RDMA device name when `to` is a NIC
  std::string relation;            // PIX, PXB, PHB, NODE, SYS (the PCI tree's, without NVLink)
  std::vector<std::string> ports;  // BDFs, from `from` up and down to `to`
};

struct IommuDevice {
  std::string pci_bdf;
  std::optional<std::string> group;  // /sys/kernel/iommu_groups/N
  std::optional<std::string> type;   // that group's type: "DMA", "DMA-FQ", "identity", "blocked", "unmanaged"
};

struct Iommu {
  std::vector<std::string> units;            // /sys/class/iommu entries ("dmar0", "ivhd0")
  std::vector<std::string> cmdline_options;  // iommu=, intel_iommu=, amd_iommu=, iommu.passthrough= as given
  std::string mode;                          // "translated", "passthrough", "off", "unknown"
  std::string mode_basis;                    // the fact the mode comes from
  std::vector<IommuDevice> devices;          // GPUs and RDMA NICs
};

// GPUDirect RDMA plumbing: NCCL marks a NIC gdr="1" when a peer-memory client is registered (memory_peers or the
// nvidia_peermem module), or uses dma-buf (Linux 5.12 and newer, NCCL_DMABUF_ENABLE not 0).
struct PeerMemory {
  std::vector<std::string> modules;           // loaded: "nvidia_peermem", "nv_peer_mem" (/proc/modules, /sys/module)
  std::vector<std::string> memory_peers;      // registered clients: /sys/kernel/mm/memory_peers/* ("nv_mem")
  bool registered = false;                    // NCCL's own test (nv_mem, nv_mem_nc or nvidia_peermem version file)
  std::optional<std::string> kernel_release;  // /proc/sys/kernel/osrelease (dma-buf needs 5.12: diagnose judges it)
};

struct Virtualization {
  bool hypervisor_flag = false;                         // /proc/cpuinfo flags
  std::optional<std::string> sys_vendor, product_name;  // /sys/class/dmi/id
  std::vector<std::string> virtual_bridges;             // "0000:81:00.0 (104c:8232)": bridges hypervisors emulate
  std::vector<std::string> gpus_without_numa;           // GPU BDFs whose numa_node is -1
  // "0000:00:06.0: 18 active link(s) to fffffff:ff:ff.0": NVLink remotes NVML names that the PCI tree lacks
  std::vector<std::string> hidden_nvlink_remotes;
  int numa_nodes = 0;                              // NUMA nodes the guest sees
  bool is_vm() const;
};

// RDMA devices sharing a node GUID (ports of one HCA listed as separate devices, which may alias rails).
struct SharedNodeGuid {
  std::string node_guid;
  std::vector<std::string> nics;
};

struct HostEvidence {
  std::vector<PciFunctionEvidence> pci_functions;
  std::vector<PciPath> pci_paths;
  Iommu iommu;
  PeerMemory peer_memory;
  Virtualization virtualization;
  std::vector<SharedNodeGuid> shared_node_guids;
  nlohmann::json extra;

  const PciFunctionEvidence* function(const std::string& pci_bdf) const;
  const IommuDevice* iommu_device(const std::string& pci_bdf) const;
};

nlohmann::json to_json(const HostEvidence& evidence);
HostEvidence host_evidence_from_json(const JsonReader& reader);

}  // namespace linkscope::model
