#include "model/host_evidence.hpp"

#include <algorithm>

namespace linkscope::model {

using nlohmann::json;

bool PcieAcs::redirects() const {
  return std::any_of(control.begin(), control.end(),
                     [](const std::string& bit) { return bit == "ReqRedir" || bit == "CmpltRedir"; });
}

bool Virtualization::is_vm() const { return hypervisor_flag || !virtual_bridges.empty(); }

const PciFunctionEvidence* HostEvidence::function(const std::string& pci_bdf) const {
  for (const auto& f : pci_functions) {
    if (f.pci_bdf == pci_bdf) return &f;
  }
  return nullptr;
}

const IommuDevice* HostEvidence::iommu_device(const std::string& pci_bdf) const {
  for (const auto& d : iommu.devices) {
    if (d.pci_bdf == pci_bdf) return &d;
  }
  return nullptr;
}

namespace {

json function_json(const PciFunctionEvidence& f) {
  json out = {{"pci_bdf", f.pci_bdf},
              {"role", f.role},
              {"vendor", optional_json(f.vendor)},
              {"device", optional_json(f.device)},
              {"extended_config", f.extended_config}};
  if (!f.extended_config) out["extended_config_reason"] = f.extended_config_reason;
  out["acs"] = f.acs ? json{{"offset", f.acs->offset}, {"capability", f.acs->capability}, {"control", f.acs->control}}
                     : json(nullptr);
  out["ats"] = f.ats ? json{{"offset", f.ats->offset}, {"enabled", f.ats->enabled}} : json(nullptr);
  return with_extras(std::move(out), f.extra);
}

PciFunctionEvidence function_from(const JsonReader& r) {
  PciFunctionEvidence f;
  f.pci_bdf = r.string_or("pci_bdf");
  f.role = r.string_or("role");
  f.vendor = r.string("vendor");
  f.device = r.string("device");
  f.extended_config = r.boolean("extended_config").value_or(false);
  f.extended_config_reason = r.string_or("extended_config_reason");
  if (r.has("acs")) {
    const JsonReader acs = r.object("acs");
    f.acs = PcieAcs{acs.small_int("offset").value_or(0), acs.strings("capability"), acs.strings("control")};
  }
  if (r.has("ats")) {
    const JsonReader ats = r.object("ats");
    f.ats = PcieAts{ats.small_int("offset").value_or(0), ats.boolean("enabled").value_or(false)};
  }
  f.extra = r.extras();
  return f;
}

}  // namespace

json to_json(const HostEvidence& e) {
  json out;
  out["pci_functions"] = json::array();
  for (const auto& f : e.pci_functions) out["pci_functions"].push_back(function_json(f));
  out["pci_paths"] = json::array();
  for (const auto& p : e.pci_paths) {
    out["pci_paths"].push_back({{"from_bdf", p.from_bdf},
                                {"to_bdf", p.to_bdf},
                                {"nic", optional_json(p.nic)},
                                {"relation", p.relation},
                                {"ports", p.ports}});
  }
  json devices = json::array();
  for (const auto& d : e.iommu.devices) {
    devices.push_back({{"pci_bdf", d.pci_bdf}, {"group", optional_json(d.group)}, {"type", optional_json(d.type)}});
  }
  out["iommu"] = {{"units", e.iommu.units},
                  {"cmdline_options", e.iommu.cmdline_options},
                  {"mode", e.iommu.mode},
                  {"mode_basis", e.iommu.mode_basis},
                  {"devices", devices}};
  const PeerMemory& p = e.peer_memory;
  out["peer_memory"] = {{"modules", p.modules},
                        {"memory_peers", p.memory_peers},
                        {"registered", p.registered},
                        {"kernel_release", optional_json(p.kernel_release)}};
  const Virtualization& v = e.virtualization;
  out["virtualization"] = {{"hypervisor_flag", v.hypervisor_flag},
                           {"sys_vendor", optional_json(v.sys_vendor)},
                           {"product_name", optional_json(v.product_name)},
                           {"virtual_bridges", v.virtual_bridges},
                           {"gpus_without_numa", v.gpus_without_numa},
                           {"hidden_nvlink_remotes", v.hidden_nvlink_remotes},
                           {"numa_nodes", v.numa_nodes}};
  out["shared_node_guids"] = json::array();
  for (const auto& s : e.shared_node_guids)
    out["shared_node_guids"].push_back({{"node_guid", s.node_guid}, {"nics", s.nics}});
  return with_extras(std::move(out), e.extra);
}

HostEvidence host_evidence_from_json(const JsonReader& r) {
  HostEvidence e;
  for (const auto& f : r.array("pci_functions")) e.pci_functions.push_back(function_from(f));
  for (const auto& p : r.array("pci_paths")) {
    e.pci_paths.push_back(
        {p.string_or("from_bdf"), p.string_or("to_bdf"), p.string("nic"), p.string_or("relation"), p.strings("ports")});
  }
  const JsonReader iommu = r.object("iommu");
  e.iommu.units = iommu.strings("units");
  e.iommu.cmdline_options = iommu.strings("cmdline_options");
  e.iommu.mode = iommu.string_or("mode", "unknown");
  e.iommu.mode_basis = iommu.string_or("mode_basis");
  for (const auto& d : iommu.array("devices"))
    e.iommu.devices.push_back({d.string_or("pci_bdf"), d.string("group"), d.string("type")});
  const JsonReader p = r.object("peer_memory");
  e.peer_memory.modules = p.strings("modules");
  e.peer_memory.memory_peers = p.strings("memory_peers");
  e.peer_memory.registered = p.boolean("registered").value_or(false);
  e.peer_memory.kernel_release = p.string("kernel_release");
  const JsonReader v = r.object("virtualization");
  e.virtualization.hypervisor_flag = v.boolean("hypervisor_flag").value_or(false);
  e.virtualization.sys_vendor = v.string("sys_vendor");
  e.virtualization.product_name = v.string("product_name");
  e.virtualization.virtual_bridges = v.strings("virtual_bridges");
  e.virtualization.gpus_without_numa = v.strings("gpus_without_numa");
  e.virtualization.hidden_nvlink_remotes = v.strings("hidden_nvlink_remotes");
  e.virtualization.numa_nodes = v.small_int("numa_nodes").value_or(0);
  for (const auto& s : r.array("shared_node_guids"))
    e.shared_node_guids.push_back({s.string_or("node_guid"), s.strings("nics")});
  e.extra = r.extras();
  return e;
}

}  // namespace linkscope::model
