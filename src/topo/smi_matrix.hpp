#pragma once
// The model's view in `nvidia-smi topo -m` terms (spec §12): X, NV#, PIX, PXB, PHB, SYS between GPUs (by rank:
// GPU0, GPU1, ...) and NICs (NCCL's NET devices: NIC0, NIC1, ...), as data so the live `topo` command can put
// it next to NVML's matrix. NCCL has one CPU node per NUMA domain, so nvidia-smi's NODE appears as PHB.
#include <string>
#include <vector>

#include "topo/topology_model.hpp"

namespace linkscope::topo {

using model::RelationMatrix;  // the matrix is part of the Run's typed model section

RelationMatrix relation_matrix(const TopologyModel& model);
// Aligned columns in nvidia-smi's layout, then the NIC legend.
std::string render_relation_matrix(const RelationMatrix& matrix);
// "0000ffff,00000000" (32-bit hex words, most significant first) -> "32-47"; "" -> "N/A".
std::string cpu_list_from_mask(const std::string& mask);

}  // namespace linkscope::topo
