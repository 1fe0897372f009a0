#pragma once
#include <string>
#include <vector>

#include "discover/nccl_net_selection.hpp"
#include "discover/system_facts.hpp"
#include "model/system.hpp"
#include "model/topology_view.hpp"

// Each GPU's relation to each NIC, in `nvidia-smi topo -m` words (PIX, PXB, PHB, NODE, SYS), whether NCCL's
// net transport would use the NIC (NET device) and, from NCCL's model, whether GPUDirect RDMA is allowed between
// them. The cross-host tests pick the GPU closest to a NIC from these.
namespace linkscope::discover {

struct GpuNicRelation {
  std::string nic;       // "mlx5_0", "eth0"
  std::string relation;  // PIX, PXB, PHB, NODE, SYS
  bool nccl_net = false; // one of the devices NCCL's IB or Socket transport would use
};

// Closeness order of the relations (PIX 0 ... SYS 4; anything else after).
int relation_distance(const std::string& relation);

// The relations of one GPU to every NIC on a PCI function, closest first (ties in NIC order); an RDMA device's
// own network interfaces (ib0 of mlx5_0) are not listed again.
std::vector<GpuNicRelation> gpu_nic_relations(const SystemFacts& facts, const GpuFacts& gpu, const NetSelection& nets);

// The closest NIC among NCCL's NET devices when the GPU relates to any, else among the RDMA devices, else among
// all; nullptr when there is none.
const GpuNicRelation* closest_nic(const std::vector<GpuNicRelation>& relations, const SystemFacts& facts);

// `system.gpu_nics` (docs/run-schema.md): per CUDA-visible GPU, every NIC relation and the closest NIC;
// `view` (NCCL's model of this machine, may be null) adds NCCL's GPUDirect RDMA modes for NET devices.
std::vector<model::GpuNics> gpu_nics(const SystemFacts& facts, const NetSelection& nets, const model::TopologyView* view);

}  // namespace linkscope::discover
