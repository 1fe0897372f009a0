#pragma once
#include <optional>
#include <string>
#include <vector>

#include "diagnose/nccl_env.hpp"
#include "model/system.hpp"

// Reads of `system.host_evidence` that the ACS, IOMMU, GPUDirect RDMA, NIC and VM rules share.
namespace linkscope::diagnose {

// The CUDA ordinal of the GPU at a bus id; nullopt for a NIC or a GPU CUDA does not show.
std::optional<int> cuda_ordinal_at(const model::System& system, const std::string& pci_bdf);
// The RDMA device (kind "infiniband") of that name, or nullptr.
const model::Nic* rdma_nic(const model::System& system, const std::string& name);
// "GPU0 (0000:03:00.0)", "mlx5_0 (0000:05:00.0)" or the bus id alone.
std::string endpoint_label(const model::System& system, const std::string& pci_bdf,
                           const std::optional<std::string>& nic);
// "GPU0 (0000:03:00.0) - mlx5_0 (0000:05:00.0), PIX".
std::string path_label(const model::System& system, const model::PciPath& path);
// True for a path whose peer traffic crosses PCIe: every GPU-NIC path, and GPU pairs without NVLink.
bool pcie_peer_path(const model::System& system, const model::PciPath& path);
// True when the path turns inside a PCIe switch (PIX, PXB): only there does an ACS redirect change the route.
bool turns_in_switch(const model::PciPath& path);

// The switch ports of a path that redirect peer requests (ACS ReqRedir/CmpltRedir on), and those whose ACS could
// not be read.
std::vector<const model::PciFunctionEvidence*> redirecting_ports(const model::HostEvidence& evidence,
                                                                 const model::PciPath& path);
std::vector<const model::PciFunctionEvidence*> unread_switch_ports(const model::HostEvidence& evidence,
                                                                   const model::PciPath& path);

// "5.15.0-91-generic" -> 515; nullopt when it is not a release.
std::optional<int> kernel_version_code(const std::string& release);
// Whether NCCL could use dma-buf for GPUDirect RDMA here (nullopt: the kernel release was not read); `why` says
// why not.
std::optional<bool> dmabuf_possible(const model::PeerMemory& peer_memory, const EnvMap& env, std::string& why);

}  // namespace linkscope::diagnose
