#include "discover/xml_synthesis.hpp"

#include <algorithm>
#include <cfloat>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "discover/xml_tree.hpp"

namespace linkscope::discover {

namespace {

// One rank's GPU, as NCCL fills it.
struct RankGpu {
  int rank = 0;
  std::string bus_id;
  unsigned nvml_index = 0;
  int sm = 0;
  int gdr = 0;
  const NvmlGpuRecord* nvml = nullptr;  // null: no NVML, so no NVLink detection (NCCL does the same)
};

// Builds one rank's XML the way NCCL's ncclTopoGetSystem does before fusion.
class RankXmlBuilder {
 public:
  RankXmlBuilder(const HostFacts& host, std::vector<std::string>& notes) : host_(host), notes_(notes) {}

  XmlDocument build(const RankGpu& gpu, const NetSelection& nets) {
    XmlDocument doc;
    XmlNode* system = doc.create("system", nullptr);
    system->set("version", "1");
    fill_gpu(doc, gpu);
    for (const auto& net : nets.devices) fill_net(doc, net);
    doc.trim();
    return doc;
  }

 private:
  // ncclTopoGetPciNode: the <pci busid> anywhere in the document, or a new detached one.
  static XmlNode* pci_node(XmlDocument& doc, const std::string& bus_id) {
    if (XmlNode* node = doc.find_first_with("pci", "busid", bus_id)) return node;
    XmlNode* node = doc.create("pci", nullptr);
    node->set("busid", bus_id);
    return node;
  }

  // ncclTopoGetXmlFromCpu.
  void cpu_from_sys(XmlNode* cpu) {
    const std::string* numa = cpu->attribute("numaid");
    if (cpu->attribute("affinity") == nullptr && numa != nullptr) {
      char* end = nullptr;
      const long id = std::strtol(numa->c_str(), &end, 10);
      for (const auto& node : host_.numa_nodes) {
        if (end != numa->c_str() && node.id == id && node.cpumap) cpu->set("affinity", *node.cpumap);
      }
    }
    const std::string arch = host_.cpu && !host_.cpu->arch.empty() ? host_.cpu->arch : build_arch();
    if (cpu->attribute("arch") == nullptr) cpu->set("arch", arch);
    if (arch != "x86_64") return;
    if (cpu->attribute("vendor") == nullptr) {
      if (host_.cpu && host_.cpu->vendor) {
        cpu->set("vendor", *host_.cpu->vendor);
      } else {
        note("no CPU vendor (no /proc/cpuinfo): the <cpu> lacks vendor, which NCCL requires on x86");
      }
    }
    if (cpu->attribute("familyid") == nullptr && host_.cpu && host_.cpu->family_id && host_.cpu->model_id) {
      cpu->set("familyid", std::to_string(*host_.cpu->family_id));
      cpu->set("modelid", std::to_string(*host_.cpu->model_id));
    }
  }

  // ncclTopoGetXmlFromSys: attributes from sysfs, then the parent (switch upstream port or CPU).
  void pci_from_sys(XmlDocument& doc, XmlNode* node) {
    const std::string bus_id = *node->attribute("busid");
    const PciDevice* device = host_.pci.find(bus_id);
    if (device == nullptr) note(fmt::format("{} is not in sysfs: its <pci> has no class, speed or width", bus_id));
    if (device != nullptr && device->class_id) node->set("class", *device->class_id);
    const auto copy = [&](const char* key, const std::optional<std::string>& value) {
      if (node->attribute(key) == nullptr && device != nullptr && value) node->set(key, *value);
    };
    copy("vendor", device ? device->vendor : std::nullopt);
    copy("device", device ? device->device : std::nullopt);
    copy("subsystem_vendor", device ? device->subsystem_vendor : std::nullopt);
    copy("subsystem_device", device ? device->subsystem_device : std::nullopt);
    const PciDevice* port = device != nullptr ? host_.pci.upstream_port(*device) : nullptr;
    if (node->attribute("link_speed") == nullptr) {
      if (device == nullptr) {
        node->set("link_speed", "");
      } else {
        // The slower of the device and the port above it; an unreadable side does not count.
        const std::string device_speed = device->max_link_speed.value_or("");
        const std::string port_speed = port != nullptr ? port->max_link_speed.value_or("") : "";
        const auto gts = [](const std::string& text) {
          char* end = nullptr;
          const float value = std::strtof(text.c_str(), &end);
          return end != text.c_str() ? value : FLT_MAX;
        };
        node->set("link_speed", gts(port_speed) < gts(device_speed) ? port_speed : device_speed);
      }
    }
    if (node->attribute("link_width") == nullptr) {
      if (device == nullptr) {
        node->set("link_width", "");
      } else {
        // strtol of an unreadable file is 0, and min() keeps it: a GPU on a root complex gets width 0 (= x16).
        const long device_width = std::strtol(device->max_link_width.value_or("").c_str(), nullptr, 0);
        const long port_width = port != nullptr ? std::strtol(port->max_link_width.value_or("").c_str(), nullptr, 0) : 0;
        node->set("link_width", std::to_string(std::min(device_width, port_width)));
      }
    }
    if (const std::string* vendor = node->attribute("vendor"); vendor != nullptr && *vendor == "0x1000") {
      const auto links = host_.bcm_switch_links.find(bus_id);
      if (links != host_.bcm_switch_links.end()) {
        for (const auto& target : links->second) {
          if (node->child_with("pcilink", "target", target) == nullptr) doc.create("pcilink", node)->set("target", target);
        }
      }
    }
    XmlNode* parent = node->parent;
    if (parent == nullptr) {
      XmlNode* system = doc.root();
      if (device != nullptr) {
        const NcclPciParent where = host_.pci.nccl_parent(*device);
        if (where.is_cpu) {
          parent = system->child_with("cpu", "numaid", where.numa_id);
          if (parent == nullptr) {
            parent = doc.create("cpu", system);
            parent->set("numaid", where.numa_id);
          }
        } else {
          parent = pci_node(doc, where.bdf);
        }
      } else {
        parent = system->child_with("cpu", "numaid", "-1");
        if (parent == nullptr) {
          parent = doc.create("cpu", system);
          parent->set("numaid", "-1");
          cpu_from_sys(parent);
        }
      }
      // Keep PCI children ordered by bus id (NCCL issue #820): before the first larger busid.
      std::size_t position = parent->children.size();
      for (std::size_t i = 0; i < parent->children.size(); ++i) {
        const std::string* other = parent->children[i]->attribute("busid");
        if (other != nullptr && bus_id < *other) {
          position = i;
          break;
        }
      }
      doc.attach(node, parent, position);
    }
    if (parent->name == "pci") {
      pci_from_sys(doc, parent);
    } else if (parent->name == "cpu") {
      cpu_from_sys(parent);
    }
  }

  // ncclTopoFillGpu + ncclTopoGetXmlFromGpu, then the rank attributes ncclTopoGetSystem adds.
  void fill_gpu(XmlDocument& doc, const RankGpu& gpu) {
    XmlNode* pci = pci_node(doc, gpu.bus_id);
    pci->init("class", "0x03");
    pci_from_sys(doc, pci);
    XmlNode* node = pci->first_child("gpu");
    if (node == nullptr) node = doc.create("gpu", pci);
    node->init("dev", std::to_string(gpu.nvml_index));
    node->init("sm", std::to_string(gpu.sm));
    add_nvlinks(doc, node, gpu);
    add_c2c(doc, node, gpu);
    node->set("keep", "1");
    node->set("rank", std::to_string(gpu.rank));
    node->init("gdr", std::to_string(gpu.gdr));
  }

  void add_nvlinks(XmlDocument& doc, XmlNode* node, const RankGpu& gpu) {
    if (gpu.nvml == nullptr) {
      note(fmt::format("GPU {}: no NVML record, so no <nvlink> (NCCL skips NVLink detection without NVML too)", gpu.bus_id));
      return;
    }
    const unsigned max_links = gpu.sm < 60 ? 0 : gpu.sm < 70 ? 4 : gpu.sm < 80 ? 6 : gpu.sm < 90 ? 12 : 18;
    for (const auto& link : gpu.nvml->nvlinks) {
      // NCCL counts a link when it is P2P-capable and active and NVML names its remote end.
      if (link.link >= max_links || !link.p2p_supported.value_or(false) || !link.active.value_or(false) ||
          !link.remote_bus_id.has()) {
        continue;
      }
      const std::string& target = *link.remote_bus_id;
      XmlNode* element = node->child_with("nvlink", "target", target);
      if (element == nullptr) {
        element = doc.create("nvlink", node);
        element->set("target", target);
        element->set("count", "1");
      } else {
        element->set("count", std::to_string(std::atoi(element->attribute("count")->c_str()) + 1));
      }
    }
    for (XmlNode* element : node->children) {
      if (element->name != "nvlink" || element->attribute("tclass") != nullptr) continue;
      // NCCL looks the target up in sysfs by its first 12 characters; an unknown target (the VM case,
      // "fffffff:ff:ff.0") is taken to be the NVSwitch.
      const std::string& target = *element->attribute("target");
      const PciDevice* remote = is_sysfs_bdf(target.substr(0, 12)) ? host_.pci.find(target.substr(0, 12)) : nullptr;
      if (remote != nullptr && remote->class_id) {
        element->set("tclass", *remote->class_id);
      } else {
        element->set("tclass", "0x068000");
      }
    }
  }

  void add_c2c(XmlDocument& doc, XmlNode* node, const RankGpu& gpu) {
    if (gpu.nvml == nullptr || gpu.sm < 90 || !gpu.nvml->c2c_active_links.has() || *gpu.nvml->c2c_active_links == 0 ||
        node->first_child("c2c") != nullptr) {
      return;
    }
    XmlNode* c2c = doc.create("c2c", node);
    c2c->set("bw", std::to_string(gpu.nvml->c2c_max_bw_mbyte_s.value_or(0)));
    c2c->set("count", std::to_string(*gpu.nvml->c2c_active_links));
  }

  // ncclTopoFillNet + the attributes ncclTopoPopulateNics sets.
  void fill_net(XmlDocument& doc, const NcclNetDevice& net) {
    XmlNode* element = doc.find_first_with("net", "name", net.name);
    if (element == nullptr) {
      XmlNode* parent = nullptr;
      if (net.pci_path) {
        parent = pci_node(doc, std::string(path_basename(*net.pci_path)));
        parent->init("class", "0x02");
        pci_from_sys(doc, parent);
      } else {
        parent = doc.find_first("cpu");  // not a PCI device: the first CPU created
        if (parent == nullptr) {
          note(fmt::format("{}: no <cpu> to attach a non-PCI NIC to", net.name));
          return;
        }
      }
      XmlNode* nic = parent->first_child("nic");
      if (nic == nullptr) nic = doc.create("nic", parent);
      element = doc.create("net", nic);
      element->set("name", net.name);
    }
    element->set("keep", "1");
    element->set("dev", std::to_string(net.dev));
    element->init("latency", std::to_string(net.latency));
    element->init("speed", std::to_string(net.speed_mbit_s));
    element->init("port", std::to_string(net.port));
    element->init("guid", fmt::format("{:#x}", net.guid));
    if (net.maxconn) element->init("maxconn", std::to_string(*net.maxconn));
    element->init("gdr", std::to_string(net.gdr));
  }

  void note(const std::string& line) {
    if (std::find(notes_.begin(), notes_.end(), line) == notes_.end()) notes_.push_back(line);
  }

  const HostFacts& host_;
  std::vector<std::string>& notes_;
};

}  // namespace

SynthesizedTopology synthesize_topology_xml(const SystemFacts& facts, const Environment& env) {
  SynthesizedTopology result;
  std::vector<RankGpu> ranks;
  for (const auto& gpu : facts.gpus) {
    if (!gpu.cuda_ordinal) continue;
    RankGpu rank;
    rank.rank = *gpu.cuda_ordinal;
    rank.bus_id = gpu.pci_bdf;
    rank.nvml_index = gpu.nvml_index.value_or(static_cast<unsigned>(*gpu.cuda_ordinal));
    if (!gpu.nvml_index) {
      result.notes.push_back(fmt::format("GPU {}: no NVML index, dev={} assumed from the CUDA ordinal", gpu.pci_bdf,
                                         *gpu.cuda_ordinal));
    }
    rank.sm = gpu.nvml && gpu.nvml->sm.has() ? *gpu.nvml->sm : gpu.cuda ? gpu.cuda->sm : 0;
    const bool gdr = gpu.cuda && gpu.cuda->gpu_direct_rdma.value_or(false);
    if (gpu.cuda && !gpu.cuda->gpu_direct_rdma.has()) {
      result.notes.push_back(fmt::format("GPU {}: GPUDirect RDMA support unknown, gdr=0 written", gpu.pci_bdf));
    }
    rank.gdr = gdr ? 1 : 0;
    rank.nvml = gpu.nvml ? &*gpu.nvml : nullptr;
    ranks.push_back(rank);
  }
  std::sort(ranks.begin(), ranks.end(), [](const RankGpu& a, const RankGpu& b) { return a.rank < b.rank; });
  result.gpu_count = static_cast<int>(ranks.size());
  result.nets = select_nccl_nets(facts.host, env);
  if (ranks.empty()) {
    result.notes.push_back("no GPU is visible to CUDA: NCCL would have nothing to model");
    return result;
  }
  for (const auto& line : result.nets.notes) result.notes.push_back(line);
  XmlDocument fused;
  RankXmlBuilder builder(facts.host, result.notes);
  for (const auto& rank : ranks) fused.fuse(builder.build(rank, result.nets));
  result.xml = fused.dump();
  return result;
}

}  // namespace linkscope::discover
