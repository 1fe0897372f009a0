#pragma once
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "discover/nccl_net_selection.hpp"
#include "discover/system_facts.hpp"

namespace linkscope::discover {

struct SynthesizedTopology {
  std::string xml;                 // NCCL topology XML (NCCL_TOPO_FILE format); empty when nothing to model
  int gpu_count = 0;               // GPUs in the XML (those CUDA shows; rank = CUDA ordinal)
  NetSelection nets;               // the network devices it contains
  std::vector<std::string> notes;  // assumptions and facts that were missing, one line each
};

// The topology XML NCCL would build on this machine for a communicator over every CUDA-visible GPU
// (ncclCommInitAll: rank = CUDA ordinal), following NCCL's own detection (topology spec §4.10): for each
// rank, its GPU's PCI path from sysfs (switches as upstream ports, link speed/width as the smaller of the
// device and its port), a <cpu> per NUMA node (arch/vendor/family/model from /proc/cpuinfo), the <gpu>
// (dev = NVML index, sm, rank, gdr) with <nvlink> counts per remote and the remote's class, and the NICs
// of the net transport; then the per-rank trees fused in rank order. Only `host_hash` is left out: the
// model treats a missing hash as one host.
SynthesizedTopology synthesize_topology_xml(const SystemFacts& facts, const Environment& env);

}  // namespace linkscope::discover
