#include "discover/gpu_nic_relations.hpp"

#include <algorithm>

namespace linkscope::discover {

namespace {

using nlohmann::json;

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
void add_gdr(json& entry, const json& model, int rank, const std::string& nic) {
  entry["gdr_read"] = nullptr;
  entry["gdr_write"] = nullptr;
  if (!model.is_object() || !model.contains("nodes") || !model.contains("gdr")) {
    entry["gdr_reason"] = "no model of this machine";
    return;
  }
  std::vector<std::string> net_ids;
  for (const auto& node : model["nodes"]) {
    if (node.value("type", "") == "NET" && node.value("name", "") == nic) net_ids.push_back(node.value("id", ""));
  }
  for (const auto& decision : model["gdr"]) {
    if (decision.value("rank", -1) != rank) continue;
    if (std::find(net_ids.begin(), net_ids.end(), decision.value("net", "")) == net_ids.end()) continue;
    entry["gdr_read"] = decision.value("read_mode", "");
    entry["gdr_write"] = decision.value("write_mode", "");
    entry["gdr_reason"] = decision.contains("write_reason") ? decision["write_reason"] : json(nullptr);
    return;
  }
  entry["gdr_reason"] = "the model has no GPUDirect RDMA decision for this GPU and NIC";
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

nlohmann::json gpu_nics_json(const SystemFacts& facts, const NetSelection& nets, const nlohmann::json& model) {
  json out = json::array();
  for (const auto& gpu : facts.gpus) {
    if (!gpu.cuda_ordinal) continue;
    const auto relations = gpu_nic_relations(facts, gpu, nets);
    json nics = json::array();
    for (const auto& r : relations) {
      json entry = {{"name", r.nic}, {"relation", r.relation}, {"nccl_net", r.nccl_net}};
      if (r.nccl_net) {
        add_gdr(entry, model, *gpu.cuda_ordinal, r.nic);
      } else {
        entry["gdr_read"] = nullptr;
        entry["gdr_write"] = nullptr;
        entry["gdr_reason"] = "not one of NCCL's NET devices";
      }
      nics.push_back(entry);
    }
    const GpuNicRelation* closest = closest_nic(relations, facts);
    out.push_back({{"cuda_ordinal", *gpu.cuda_ordinal},
                   {"nvml_index", gpu.nvml_index ? json(*gpu.nvml_index) : json(nullptr)},
                   {"pci_bdf", gpu.pci_bdf},
                   {"nics", nics},
                   {"closest", closest != nullptr ? json(closest->nic) : json(nullptr)},
                   {"closest_relation", closest != nullptr ? json(closest->relation) : json(nullptr)},
                   {"closest_reason", closest != nullptr ? json(nullptr)
                                                         : json(gpu.pci ? "no NIC on a PCI function" : "the GPU's PCI function is not in sysfs")}});
  }
  return out;
}

}  // namespace linkscope::discover
