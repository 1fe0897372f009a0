#include "discover/gpu_nic_relations.hpp"

#include <algorithm>

namespace linkscope::discover {

namespace {

bool is_nccl_net(const NetSelection& nets, const std::string& name) {
  return std::any_of(nets.devices.begin(), nets.devices.end(), [&](const NcclNetDevice& d) { return d.name == name; });
}

const NicDevice* nic_named(const SystemFacts& facts, const std::string& name) {
  for (const auto& nic : facts.host.nics) {
    if (nic.name == name) return &nic;
  }
  return nullptr;
}

// NCCL's GPUDirect RDMA modes between the GPU of `rank` and every NET node named `nic` in the model.
void add_gdr(model::GpuNicRelation& entry, const model::TopologyView* view, int rank, const std::string& nic) {
  if (view == nullptr || !view->present) {
    entry.gdr_reason = "no model of this machine";
    return;
  }
  std::vector<std::string> net_ids;
  for (const auto& node : view->nodes) {
    if (node.type == "NET" && node.name.value_or("") == nic) net_ids.push_back(node.id);
  }
  for (const auto& decision : view->gdr) {
    if (decision.rank != rank) continue;
    if (std::find(net_ids.begin(), net_ids.end(), decision.net) == net_ids.end()) continue;
    entry.gdr_read = decision.read_mode;
    entry.gdr_write = decision.write_mode;
    entry.gdr_reason = decision.write_reason;
    return;
  }
  entry.gdr_reason = "the model has no GPUDirect RDMA decision for this GPU and NIC";
}

}  // namespace

int relation_distance(const std::string& relation) {
  static const char* const kOrder[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};
  for (int i = 0; i < 5; ++i) {
    if (relation == kOrder[i]) return i;
  }
  return 5;
}

std::vector<GpuNicRelation> gpu_nic_relations(const SystemFacts& facts, const GpuFacts& gpu, const NetSelection& nets) {
  std::vector<GpuNicRelation> relations;
  if (!gpu.pci) return relations;
  for (const auto& nic : facts.host.nics) {
    if (!nic.pci_bdf) continue;
    // An RDMA device's own interfaces (ib0 of mlx5_0, a RoCE port's netdev) are the same NIC.
    const bool rdma_interface = nic.kind != "infiniband" && std::any_of(facts.host.nics.begin(), facts.host.nics.end(), [&](const NicDevice& other) {
      return other.kind == "infiniband" && other.pci_bdf == nic.pci_bdf;
    });
    if (rdma_interface) continue;
    const PciDevice* device = facts.host.pci.find(*nic.pci_bdf);
    if (device == nullptr) continue;
    relations.push_back({nic.name, facts.host.pci.relation(*gpu.pci, *device), is_nccl_net(nets, nic.name)});
  }
  std::stable_sort(relations.begin(), relations.end(), [](const GpuNicRelation& a, const GpuNicRelation& b) {
    return relation_distance(a.relation) < relation_distance(b.relation);
  });
  return relations;
}

const GpuNicRelation* closest_nic(const std::vector<GpuNicRelation>& relations, const SystemFacts& facts) {
  for (const auto& r : relations) {
    if (r.nccl_net) return &r;
  }
  for (const auto& r : relations) {
    const NicDevice* nic = nic_named(facts, r.nic);
    if (nic != nullptr && nic->kind == "infiniband") return &r;
  }
  return relations.empty() ? nullptr : &relations.front();
}

std::vector<model::GpuNics> gpu_nics(const SystemFacts& facts, const NetSelection& nets, const model::TopologyView* view) {
  std::vector<model::GpuNics> out;
  for (const auto& gpu : facts.gpus) {
    if (!gpu.cuda_ordinal) continue;
    const auto relations = gpu_nic_relations(facts, gpu, nets);
    model::GpuNics entry;
    entry.cuda_ordinal = *gpu.cuda_ordinal;
    if (gpu.nvml_index) entry.nvml_index = static_cast<int>(*gpu.nvml_index);
    entry.pci_bdf = gpu.pci_bdf;
    for (const auto& r : relations) {
      model::GpuNicRelation nic;
      nic.name = r.nic;
      nic.relation = r.relation;
      nic.nccl_net = r.nccl_net;
      if (r.nccl_net) {
        add_gdr(nic, view, *gpu.cuda_ordinal, r.nic);
      } else {
        nic.gdr_reason = "not one of NCCL's NET devices";
      }
      entry.nics.push_back(std::move(nic));
    }
    if (const GpuNicRelation* closest = closest_nic(relations, facts)) {
      entry.closest = closest->nic;
      entry.closest_relation = closest->relation;
    } else {
      entry.closest_reason = gpu.pci ? "no NIC on a PCI function" : "the GPU's PCI function is not in sysfs";
    }
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace linkscope::discover
