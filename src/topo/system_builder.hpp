#pragma once
// Builds NCCL's graph from the kept XML tree (topo.cc ncclTopoGetSystemFromXml): nodes per <cpu> in
// document order, then NVLinks, C2C links, <pcilink>s, Broadcom flattening, inter-CPU links and the sort.
#include <string>
#include <vector>

#include "topo/nccl_versions.hpp"
#include "topo/topo_types.hpp"
#include "topo/xml_reader.hpp"

namespace linkscope::topo {

struct BuiltSystem {
  TopoSystem system;
  std::vector<std::string> info_lines;  // NCCL's "KV Convert ..." lines, in construction order
  std::vector<std::string> notes;       // dropped elements, rewritten host hashes, ...
  int gpu_slots = 0;                    // <pci> of GPU class without <gpu> (skeleton files)
  int nic_slots = 0;                    // <pci> of NIC class without <nic>
  std::vector<std::string> slot_busids;
};

// Throws ModelError (with the XML line) where NCCL stops: missing required attributes, an <nvlink>/<c2c> of a
// GPU that is not in the graph, too many nodes/links. Also refuses values NCCL would silently misread:
// non-numeric or out-of-range numbers and negative counts, widths, ranks and device indices.
BuiltSystem build_system(const XmlElement& system_element, const ModelledVersion& version);

}  // namespace linkscope::topo
