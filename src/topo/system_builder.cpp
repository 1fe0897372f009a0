#include "topo/system_builder.hpp"

#include <cstdint>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "topo/bcm_flatten.hpp"
#include "topo/graph_edit.hpp"
#include "topo/nccl_numbers.hpp"

namespace linkscope::topo {

namespace {

const std::string& required(const XmlElement& element, const char* name) {
  const std::string* value = element.attribute(name);
  if (value == nullptr) {
    throw ModelError(element.line, fmt::format("<{}> has no {} attribute (NCCL: Attribute {} of node {} not found)",
                                               element.name, name, name, element.name));
  }
  return *value;
}

// NCCL reads integers with strtol and never complains; a value with no number in it, or one that does not fit
// an int, is a broken file, so it is refused here instead of being read as 0 or wrapped.
int to_int(const XmlElement& element, const char* name, const std::string& value, bool allow_negative) {
  const CInteger parsed = c_strtol(value);
  if (!parsed.parsed_digits && !value.empty()) {
    throw ModelError(element.line, fmt::format("<{} {}=\"{}\">: not a number", element.name, name, value));
  }
  if (parsed.overflow || parsed.value < std::numeric_limits<int32_t>::min() ||
      parsed.value > std::numeric_limits<int32_t>::max()) {
    throw ModelError(element.line, fmt::format("<{} {}=\"{}\">: out of range", element.name, name, value));
  }
  if (!allow_negative && parsed.value < 0) {
    throw ModelError(element.line, fmt::format("<{} {}=\"{}\">: must not be negative", element.name, name, value));
  }
  return static_cast<int>(parsed.value);
}

int required_int(const XmlElement& element, const char* name, bool allow_negative) {
  return to_int(element, name, required(element, name), allow_negative);
}

int optional_int(const XmlElement& element, const char* name, int fallback, bool allow_negative) {
  const std::string* value = element.attribute(name);
  return value == nullptr ? fallback : to_int(element, name, *value, allow_negative);
}

// The pci vendor/device ids only feed the printed switch id; NCCL adds strtol(value) << shift.
uint64_t pci_id_field(const XmlElement& element, const char* name, int shift) {
  const std::string* value = element.attribute(name);
  if (value == nullptr) return 0;
  return static_cast<uint64_t>(c_strtol(*value).value) << shift;
}

// NCCL's 64-bit device id of a <pci>: vendor, device, subsystem vendor, subsystem device.
uint64_t pci_device_ids(const XmlElement& pci) {
  return pci_id_field(pci, "vendor", 48) + pci_id_field(pci, "device", 32) + pci_id_field(pci, "subsystem_vendor", 16) +
         pci_id_field(pci, "subsystem_device", 0);
}

const XmlElement* first_child(const XmlElement& element, std::string_view name) {
  for (const auto& child : element.children) {
    if (child.name == name) return &child;
  }
  return nullptr;
}

enum class LinkPass { kNvlink, kC2c, kPcilink };

class Builder {
 public:
  explicit Builder(const ModelledVersion& version) : version_(version) {}

  BuiltSystem run(const XmlElement& system_element) {
    std::set<uint64_t> host_hashes;
    for (const auto& cpu : system_element.children) {
      if (cpu.name != "cpu") continue;
      const std::string* hash = cpu.attribute("host_hash");
      host_hashes.insert(hash == nullptr ? 0 : c_strtoull_hex(*hash));
      add_cpu(cpu);
    }
    if (out_.system.count(kCpu) == 0) {
      throw ModelError(system_element.line,
                       fmt::format("<system> has no <cpu> element: nothing to model (NCCL {} stops: localHostHash not "
                                   "found in hostHashes)",
                                   version_.modelled.text()));
    }
    if (host_hashes.size() > 1) {
      out_.notes.push_back(fmt::format(
          "the file lists {} different host_hash values; NCCL rewrites every host_hash to the local host's when "
          "it loads a topology file, so all CPUs are modelled as one host",
          host_hashes.size()));
    }
    walk(system_element, nullptr, LinkPass::kNvlink);
    walk(system_element, nullptr, LinkPass::kC2c);
    walk(system_element, nullptr, LinkPass::kPcilink);
    flatten_broadcom_switches(out_.system);
    connect_cpus();
    sort_system(out_.system);
    return std::move(out_);
  }

 private:
  int convert(DictValue value, std::string_view text) {
    if (!value.matched) {
      out_.info_lines.push_back(kv_convert_line(text, value.value));
      if (version_.has(NcclChange::kTopoFileHints)) {
        for (auto& hint : topo_file_hint_lines()) out_.info_lines.push_back(std::move(hint));
      }
    }
    return value.value;
  }

  void add_cpu(const XmlElement& cpu) {
    if (out_.system.count(kCpu) == kMaxCpuNodes) {
      throw ModelError(cpu.line, fmt::format("more than {} <cpu> (NUMA) nodes: linkscope models one host with at "
                                             "most {}",
                                             kMaxCpuNodes, kMaxCpuNodes));
    }
    const int numaid = required_int(cpu, "numaid", true);
    const NodeRef ref = create_node(out_.system, kCpu, compose_id(0, numaid), cpu.line);
    {
      Node& node = out_.system.at(ref);
      node.numaid = numaid;
      if (const std::string* affinity = cpu.attribute("affinity")) node.affinity = *affinity;
      const std::string& arch = required(cpu, "arch");
      node.arch = convert(cpu_arch_value(arch), arch);
      if (node.arch == kArchX86) {
        const std::string& vendor = required(cpu, "vendor");
        node.vendor = convert(cpu_vendor_value(vendor), vendor);
        if (node.vendor == kVendorIntel || node.vendor == kVendorZhaoxin) {
          const int family = required_int(cpu, "familyid", true);
          const int model = required_int(cpu, "modelid", true);
          node.model = node.vendor == kVendorIntel ? intel_cpu_model(family, model) : zhaoxin_cpu_model(family, model);
        }
      }
    }
    for (const auto& child : cpu.children) {
      if (child.name == "pci") add_pci(child, ref);
      if (child.name == "nic") {
        // A <nic> directly under <cpu> (virtio, sockets) always gets NIC id 0 (quirk Q1): a second such <nic>
        // under another CPU reuses the first node, unlinked, and only adds its <net>s.
        const int64_t id = compose_id(0, 0);
        int index = out_.system.index_of(kNic, id);
        NodeRef nic{kNic, index};
        if (index < 0) {
          nic = create_node(out_.system, kNic, id, child.line);
          connect_nodes(out_.system, ref, nic, kLinkPci, kLocBw);
          connect_nodes(out_.system, nic, ref, kLinkPci, kLocBw);
        } else {
          out_.notes.push_back(fmt::format(
              "line {}: a second CPU-attached <nic> joins NIC/0-0 of the first CPU (NCCL quirk: every <nic> "
              "directly under <cpu> has id 0); its NET nodes are duplicates that NCCL never reaches",
              child.line));
        }
        add_nic(child, nic);
      }
    }
  }

  void add_pci(const XmlElement& pci, NodeRef parent) {
    const std::string& pci_class = required(pci, "class");
    int type = convert(pci_class_to_type(pci_class), pci_class);
    const std::string& busid = required(pci, "busid");
    const int64_t id = compose_id(0, bus_id_to_int(busid));
    NodeRef node;
    if (const XmlElement* gpu = first_child(pci, "gpu")) {
      if (gpu->attribute("rank") == nullptr) {
        rankless_gpus_.insert(busid);
        ++out_.gpu_slots;
        out_.slot_busids.push_back(busid);
        out_.notes.push_back(fmt::format(
            "line {}: the <gpu> at {} has no rank attribute; NCCL drops it (at run time it fills in the ranks "
            "of the GPUs its communicator uses)",
            gpu->line, busid));
        return;
      }
      if (version_.has(NcclChange::kDeviceNodes)) {
        node = add_device(pci, id);
        if (!node.valid()) return;
      } else {
        type = kGpu;
        node = create_node(out_.system, kGpu, id, pci.line);
        read_gpu(*gpu, out_.system.at(node));
      }
    }
    if (const XmlElement* nic = first_child(pci, "nic")) {
      type = kNic;
      const int index = out_.system.index_of(kNic, id);
      NodeRef nic_node{kNic, index};
      if (index < 0) {
        nic_node = create_node(out_.system, kNic, id, pci.line);
        node = nic_node;  // linked to its parent below
      } else {
        out_.notes.push_back(fmt::format(
            "line {}: NIC {} is listed again; NCCL merges it into the first one (no second PCI link)", pci.line, busid));
      }
      add_nic(*nic, nic_node);
    } else if (type == kPci) {
      node = create_node(out_.system, kPci, id, pci.line);
      out_.system.at(node).device = pci_device_ids(pci);
      for (const auto& child : pci.children) {
        if (child.name != "pcilink") add_pci(child, node);
      }
    } else if (!node.valid() && (type == kGpu || type == kNic)) {
      // A skeleton leaf: the class says GPU or NIC but the file has no <gpu>/<nic> (NCCL fills it at run time).
      ++(type == kGpu ? out_.gpu_slots : out_.nic_slots);
      out_.slot_busids.push_back(busid);
    }
    if (!node.valid()) return;
    const int width = required_int(pci, "link_width", false);
    const std::string& speed = required(pci, "link_speed");
    const float bw = pcie_bw(width, convert(pcie_speed_code(speed), speed));
    XmlFacts& facts = out_.system.at(node).xml;
    facts.busid = busid;
    facts.link_speed = speed;
    facts.link_width = *pci.attribute("link_width");
    facts.has_pcie_link = true;
    if (node.type == kDev) {
      for (const Link& link : out_.system.at(node).links) {
        if (link.remote.type == kGpu) out_.system.at(link.remote).xml = facts;  // the diagnosis reads GPU facts
      }
    }
    connect_nodes(out_.system, node, parent, kLinkPci, bw);
    connect_nodes(out_.system, parent, node, kLinkPci, bw);
  }

  static void read_gpu(const XmlElement& gpu, Node& node) {
    node.sm = required_int(gpu, "sm", false);
    node.rank = required_int(gpu, "rank", false);
    node.dev = required_int(gpu, "dev", false);
    node.gdr = required_int(gpu, "gdr", true);
  }

  // NCCL 2.30: one DEV node for the physical GPU (the <pci>), one GPU node per <gpu> (rank) under it, linked LOC
  // both ways; the DEV takes the PCI link to the parent. The first <gpu> gives the DEV its sm, dev and gdr; a GPU's
  // id carries its place on the device above bit 40. Returns the DEV, or none when a later <gpu> has no rank
  // (NCCL returns there, leaving the DEV unlinked).
  NodeRef add_device(const XmlElement& pci, int64_t id) {
    NodeRef device;
    int64_t place = 0;
    for (const auto& gpu : pci.children) {
      if (gpu.name != "gpu") continue;
      if (gpu.attribute("rank") == nullptr) return {};
      if (!device.valid()) {
        const int existing = out_.system.index_of(kDev, id);
        device = existing >= 0 ? NodeRef{kDev, existing} : create_node(out_.system, kDev, id, pci.line);
        if (existing < 0) {
          Node& d = out_.system.at(device);
          d.device = pci_device_ids(pci);
          d.sm = required_int(gpu, "sm", false);
          d.dev = required_int(gpu, "dev", false);
          d.gdr = required_int(gpu, "gdr", true);
        }
      }
      const int64_t local = static_cast<int64_t>((static_cast<uint64_t>(place) << 40) |
                                                 (static_cast<uint64_t>(id) & ((uint64_t{1} << 40) - 1)));
      const NodeRef g = create_node(out_.system, kGpu, compose_id(0, local), pci.line);
      read_gpu(gpu, out_.system.at(g));
      out_.system.at(g).xml.busid = *pci.attribute("busid");
      connect_nodes(out_.system, device, g, kLinkLoc, kLocBw);
      connect_nodes(out_.system, g, device, kLinkLoc, kLocBw);
      ++place;
    }
    return device;
  }

  void add_nic(const XmlElement& nic, NodeRef nic_node) {
    for (const auto& net : nic.children) {
      if (net.name != "net") continue;
      if (net.attribute("dev") == nullptr) {
        out_.notes.push_back(fmt::format("line {}: a <net> without dev is skipped, as NCCL does", net.line));
        continue;
      }
      // Since 2.29 a <net> is a network device unless net="0" (a GIN-only device); gin="1" adds a GIN node, which
      // linkscope does not model.
      if (version_.has(NcclChange::kNetAttribute)) {
        if (optional_int(net, "gin", 0, true) != 0) {
          out_.notes.push_back(fmt::format("line {}: <net gin=\"1\"> makes NCCL {} add a GIN node, which linkscope "
                                           "does not model (its paths are left out)",
                                           net.line, version_.modelled.text()));
        }
        if (optional_int(net, "net", 1, true) == 0) continue;
      }
      add_net(net, nic_node);
    }
  }

  void add_net(const XmlElement& net, NodeRef nic_node) {
    const int dev = required_int(net, "dev", false);
    const NodeRef ref = create_node(out_.system, kNet, compose_id(0, dev), net.line);
    Node& node = out_.system.at(ref);
    node.net_dev = dev;
    if (const std::string* guid = net.attribute("guid")) {
      node.asic = c_scan_hex_with_prefix(*guid).value_or(0);
    } else {
      node.asic = static_cast<uint64_t>(static_cast<int64_t>(dev));
    }
    int mbps = optional_int(net, "speed", 0, true);
    if (mbps <= 0) mbps = 10000;  // NCCL: some NICs report -1
    node.net_bw = static_cast<float>(mbps / 8000.0);
    if (const std::string* latency = net.attribute("latency")) node.latency = c_strtof(*latency);
    node.port = optional_int(net, "port", 0, true);
    node.net_gdr = optional_int(net, "gdr", 0, true);
    node.maxconn = optional_int(net, "maxconn", 64, true);
    node.coll = optional_int(net, "coll", 0, true);
    if (const std::string* name = net.attribute("name")) node.net_name = *name;
    const float bw = node.net_bw;
    connect_nodes(out_.system, nic_node, ref, kLinkNet, bw);
    connect_nodes(out_.system, ref, nic_node, kLinkNet, bw);
  }

  // NCCL's second-pass walks: the owner of an <nvlink>/<c2c>/<pcilink> is found from the busid of the nearest
  // enclosing element that has one.
  void walk(const XmlElement& element, const std::string* parent_busid, LinkPass pass) {
    if (pass == LinkPass::kNvlink && element.name == "nvlink") return add_nvlink(element, parent_busid);
    if (pass == LinkPass::kC2c && element.name == "c2c") return add_c2c(element, parent_busid);
    if (pass == LinkPass::kPcilink && element.name == "pcilink") return add_pcilink(element, parent_busid);
    const std::string* busid = element.attribute("busid");
    bool seen_gpu = false;
    for (const auto& child : element.children) {
      // NCCL 2.30: only the first <gpu> (rank) of a physical device contributes its <nvlink>s and <c2c>s.
      const bool later_rank = child.name == "gpu" && seen_gpu && version_.has(NcclChange::kDeviceNodes);
      seen_gpu = seen_gpu || child.name == "gpu";
      if (later_rank && pass != LinkPass::kPcilink) continue;
      walk(child, busid != nullptr ? busid : parent_busid, pass);
    }
  }

  // The node that owns a GPU's <nvlink>s and <c2c>s: the GPU, or since NCCL 2.30 its DEV.
  NodeRef owner_gpu(const XmlElement& element, const std::string* parent_busid) {
    const std::string busid = parent_busid != nullptr ? *parent_busid : std::string();
    const int64_t id = compose_id(0, bus_id_to_int(busid));
    const bool devices = version_.has(NcclChange::kDeviceNodes);
    const int type = devices ? kDev : kGpu;
    const int index = out_.system.index_of(type, id);
    if (index < 0) {
      throw ModelError(element.line,
                       fmt::format("<{}> of GPU {} which is not in the graph{}; NCCL {} stops here (Add NVLink "
                                   "error : could not find {}{:x})",
                                   element.name, busid,
                                   rankless_gpus_.count(busid) ? " (its <gpu> has no rank attribute)" : "",
                                   version_.modelled.text(), devices ? "DEV for GPU " : "GPU ", id));
    }
    return {type, index};
  }

  void add_nvlink(const XmlElement& nvlink, const std::string* parent_busid) {
    const NodeRef owner = owner_gpu(nvlink, parent_busid);
    const int count = required_int(nvlink, "count", false);
    const std::string& tclass = required(nvlink, "tclass");
    const int target_type = convert(pci_class_to_type(tclass), tclass);
    NvlinkFact fact;
    fact.tclass = tclass;
    fact.line = nvlink.line;
    if (const std::string* target = nvlink.attribute("target")) fact.target = *target;
    NodeRef remote;
    if (target_type == kGpu) {
      const std::string& target = required(nvlink, "target");
      const int index = out_.system.index_of(owner.type, compose_id(0, bus_id_to_int(target)));
      if (index >= 0) {
        remote = {owner.type, index};
      } else {
        out_.notes.push_back(fmt::format(
            "line {}: NVLink to GPU {} which is not in the graph is dropped, as NCCL drops it", nvlink.line, target));
      }
    } else if (target_type == kCpu) {
      remote = find_local_cpu_by_pci(out_.system, owner);
    } else {
      remote = out_.system.count(kNvs) == 0 ? create_node(out_.system, kNvs, 0, nvlink.line) : NodeRef{kNvs, 0};
    }
    const float bw = static_cast<float>(count) * nvlink_bw_per_link(out_.system.at(owner).sm);
    if (remote.valid()) {
      connect_nodes(out_.system, owner, remote, kLinkNvl, bw);
      if (target_type != kGpu) connect_nodes(out_.system, remote, owner, kLinkNvl, bw);
      fact.remote_type = remote.type == kDev ? kGpu : remote.type;  // a DEV's id is its first GPU's
      fact.remote_id = out_.system.at(remote).id;
    }
    // The diagnosis keeps a GPU's NVLink facts on the GPU itself, or on the first GPU of its DEV.
    record_nvlink(out_.system.first_gpu_on(owner), fact, count, remote.valid() ? bw : 0.0f);
  }

  void record_nvlink(NodeRef owner, NvlinkFact fact, int count, float bw) {
    auto& facts = out_.system.at(owner).nvlinks;
    for (auto& existing : facts) {
      const bool same = fact.remote_type >= 0
                            ? existing.remote_type == fact.remote_type && existing.remote_id == fact.remote_id
                            : existing.remote_type < 0 && existing.target == fact.target;
      if (same) {
        existing.count += count;
        existing.bw += bw;
        return;
      }
    }
    fact.count = count;
    fact.bw = bw;
    facts.push_back(std::move(fact));
  }

  void add_c2c(const XmlElement& c2c, const std::string* parent_busid) {
    const NodeRef gpu = owner_gpu(c2c, parent_busid);
    const int count = required_int(c2c, "count", false);
    const int bw = required_int(c2c, "bw", false);
    const auto c2c_bw = static_cast<float>(static_cast<double>(static_cast<int64_t>(bw) * count) / 1000.0);
    const NodeRef cpu = find_local_cpu_by_pci(out_.system, gpu);
    if (!cpu.valid()) return;
    connect_nodes(out_.system, gpu, cpu, kLinkC2c, c2c_bw);
    connect_nodes(out_.system, cpu, gpu, kLinkC2c, c2c_bw);
  }

  void add_pcilink(const XmlElement& pcilink, const std::string* parent_busid) {
    const std::string busid = parent_busid != nullptr ? *parent_busid : std::string();
    const int64_t id = compose_id(0, bus_id_to_int(busid));
    const int owner = out_.system.index_of(kPci, id);
    if (owner < 0) {
      throw ModelError(pcilink.line, fmt::format("<pcilink> inside {} which is not a PCI switch node; NCCL {} "
                                                 "stops here (Add PCI Link error : could not find PCI SW {:x})",
                                                 busid, version_.modelled.text(), id));
    }
    const std::string& target = required(pcilink, "target");
    const int remote = out_.system.index_of(kPci, compose_id(0, bus_id_to_int(target)));
    if (remote >= 0) connect_nodes(out_.system, {kPci, owner}, {kPci, remote}, kLinkLoc, kLocBw);
  }

  void connect_cpus() {
    auto& system = out_.system;
    for (int n = 0; n < system.count(kCpu); ++n) {
      for (int p = 0; p < system.count(kCpu); ++p) {
        if (n == p) continue;
        const Node& cpu = system.nodes[kCpu][n];
        connect_nodes(system, {kCpu, n}, {kCpu, p}, kLinkSys, inter_cpu_bw(cpu.arch, cpu.vendor, cpu.model));
      }
    }
  }

  const ModelledVersion& version_;
  BuiltSystem out_;
  std::set<std::string> rankless_gpus_;
};

}  // namespace

BuiltSystem build_system(const XmlElement& system_element, const ModelledVersion& version) {
  return Builder(version).run(system_element);
}

}  // namespace linkscope::topo
