// libFuzzer target: the sysfs and /proc readers and parsers. The h200x2 snapshot (tests/fixtures) is extracted
// once; each input replaces some of its files, and discovery reads the tree as `topo --sysfs-root` would: the PCI
// tree, NUMA nodes, NICs, /proc/cpuinfo, then the system model and the synthesized NCCL topology XML, which the
// topology reader must accept or refuse with a linkscope::Error. The replaced values also go straight to the
// string parsers (CPU lists, link speeds, bus ids). Anything else (crash, sanitizer report, other exception, hang)
// is a finding.
//
// Input: records separated by a NUL byte, each "relative/path\ncontent". A path that is not one of the snapshot's
// files picks one by its hash, so a mutated path still replaces something. scripts/fuzz.sh seeds one record per
// snapshot file.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/subprocess.hpp"
#include "discover/cpu_info.hpp"
#include "discover/cpu_list.hpp"
#include "discover/host_facts.hpp"
#include "discover/pci_tree.hpp"
#include "discover/system_facts.hpp"
#include "discover/system_model.hpp"
#include "discover/xml_synthesis.hpp"
#include "topo/topology_model.hpp"
#include "topo/nccl_versions.hpp"

namespace {

namespace fs = std::filesystem;
using namespace linkscope;

struct Snapshot {
  std::string root;                                  // the extracted "sysfs" directory
  std::map<std::string, std::string> original;       // relative path -> content
  std::vector<std::string> paths;                    // the keys, for picking by hash
};

std::string read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_whole(const std::string& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
}

const Snapshot& snapshot() {
  static const Snapshot extracted = [] {
    Snapshot s;
    const char* tgz = std::getenv("LINKSCOPE_FUZZ_SYSFS_SNAPSHOT");
    char temp[] = "/tmp/linkscope-sysfs-fuzz-XXXXXX";
    if (::mkdtemp(temp) == nullptr) std::abort();
    ChildSpec tar;
    tar.program = "tar";
    tar.args = {"-xzf", tgz != nullptr ? tgz : LINKSCOPE_SYSFS_SNAPSHOT, "-C", temp};
    if (run_child(tar).exit_code != 0) {
      std::fprintf(stderr, "sysfs_fuzzer: cannot extract the snapshot into %s\n", temp);
      std::abort();
    }
    s.root = std::string(temp) + "/sysfs";
    for (const auto& entry : fs::recursive_directory_iterator(s.root)) {
      if (!entry.is_regular_file() || entry.is_symlink()) continue;
      fs::permissions(entry.path(), fs::perms::owner_write, fs::perm_options::add);  // sysfs attributes are 0444
      const std::string relative = fs::relative(entry.path(), s.root).string();
      s.original[relative] = read_whole(entry.path());
      s.paths.push_back(relative);
    }
    if (s.paths.empty()) std::abort();
    return s;
  }();
  return extracted;
}

// The pure parsers, on any text.
void parse_value(std::string_view value) {
  try {
    (void)parse_cpu_list(value);
  } catch (const std::invalid_argument&) {
    // its documented refusal of a malformed list
  }
  (void)discover::parse_cpuinfo(value);
  (void)discover::pcie_generation_from_speed(value);
  (void)discover::canonical_bdf(value);
  (void)discover::is_sysfs_bdf(value);
  discover::PciDevice device;
  const std::string text(value);
  device.class_id = device.current_link_speed = device.max_link_speed = text;
  device.current_link_width = device.max_link_width = device.numa_node = text;
  (void)device.class_code();
  (void)device.numa_node_id();
  (void)device.current_width();
  (void)device.max_width();
  (void)device.current_generation();
  (void)device.max_generation();
}

// CUDA's view of the tree: every display device sysfs lists, in bus order (discovery without a driver has none,
// and the XML needs CUDA ordinals).
discover::CudaSnapshot cuda_of(const discover::HostFacts& host) {
  discover::CudaSnapshot cuda;
  for (const discover::PciDevice* device : discover::sysfs_display_devices(host)) {
    discover::CudaDeviceRecord record;
    record.ordinal = static_cast<int>(cuda.devices.size());
    record.name = "fuzz GPU";
    record.uuid = "GPU-fuzz-" + device->bdf;
    record.pci_bus_id = device->bdf;
    cuda.devices.push_back(record);
  }
  cuda.available = !cuda.devices.empty();
  return cuda;
}

void discover_tree(const std::string& root) {
  const Environment env = Environment::from_map({});
  discover::HostFacts host = discover::read_host_facts(discover::SysfsRoot(root));
  discover::CudaSnapshot cuda = cuda_of(host);
  const discover::SystemFacts facts = discover::assemble_system_facts(std::move(host), {}, std::move(cuda), env);
  (void)discover::system_model(facts);
  const discover::SynthesizedTopology topology = discover::synthesize_topology_xml(facts, env);
  if (topology.xml.empty()) return;
  try {
    (void)topo::load_topology_string(topology.xml, "synthesized.xml", env,
                                     topo::model_version_for(topo::newest_modelled_version()));
  } catch (const Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Snapshot& s = snapshot();
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::map<std::string, std::string> replaced;  // relative path -> new content
  std::size_t start = 0;
  while (start <= input.size()) {
    std::size_t end = input.find('\0', start);
    if (end == std::string_view::npos) end = input.size();
    const std::string_view record = input.substr(start, end - start);
    const std::size_t newline = record.find('\n');
    const std::string path(record.substr(0, newline));
    const std::string_view content = newline == std::string_view::npos ? "" : record.substr(newline + 1);
    parse_value(content);
    const std::string target =
        s.original.count(path) != 0 ? path : s.paths[std::hash<std::string>{}(path) % s.paths.size()];
    replaced[target] = std::string(content);
    start = end + 1;
  }
  for (const auto& [path, content] : replaced) write_whole(s.root + "/" + path, content);
  discover_tree(s.root);
  for (const auto& [path, content] : replaced) write_whole(s.root + "/" + path, s.original.at(path));
  return 0;
}
