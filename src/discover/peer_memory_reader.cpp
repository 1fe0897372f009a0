#include <sstream>

#include "discover/host_evidence.hpp"

namespace linkscope::discover {

model::PeerMemory read_peer_memory(const SysfsRoot& root) {
  model::PeerMemory out;
  const auto modules = root.read_file("/proc/modules");
  for (const char* name : {"nvidia_peermem", "nv_peer_mem"}) {
    bool loaded = root.exists(std::string("/sys/module/") + name);
    if (modules) {
      std::istringstream lines(*modules);
      std::string line;
      while (!loaded && std::getline(lines, line)) loaded = line.rfind(std::string(name) + " ", 0) == 0;
    }
    if (loaded) out.modules.emplace_back(name);
  }
  out.memory_peers = root.list("/sys/kernel/mm/memory_peers");
  // NCCL's IB transport asks exactly these files before it marks a NIC gdr="1".
  for (const char* path : {"/sys/kernel/mm/memory_peers/nv_mem/version",
                           "/sys/kernel/mm/memory_peers/nv_mem_nc/version", "/sys/module/nvidia_peermem/version"}) {
    if (root.exists(path)) out.registered = true;
  }
  out.kernel_release = root.read_attribute("/proc/sys/kernel/osrelease");
  return out;
}

}  // namespace linkscope::discover
