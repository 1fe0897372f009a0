#pragma once
// The model's view in `nvidia-smi topo -m` terms (spec §12): X, NV#, PIX, PXB, PHB, SYS between GPUs (by rank:
// GPU0, GPU1, ...) and NICs (NCCL's NET devices: NIC0, NIC1, ...), as data so the live `topo` command can put
// it next to NVML's matrix. NCCL has one CPU node per NUMA domain, so nvidia-smi's NODE appears as PHB.
#include <string>
#include <vector>

#include "topo/topology_model.hpp"

namespace linkscope::topo {

struct RelationMatrix {
  std::vector<std::string> labels;              // row/column labels: "GPU0"..., "NIC0"...
  std::vector<std::string> node_ids;            // NCCL node id per label ("GPU/0-1d000", "NET/0-0")
  std::vector<std::vector<std::string>> cells;  // cells[row][column]: "X", "NV4", "PIX", "PXB", "PHB", "SYS"
  std::vector<std::string> cpu_affinity;        // per row: CPU list of the GPU's NUMA node ("" for NICs)
  std::vector<std::string> numa_affinity;       // per row: NUMA id ("N/A" when unknown, "" for NICs)
  std::vector<std::string> nic_legend;          // "NIC0: mlx5_0 (NET/0-0)"
};

RelationMatrix relation_matrix(const TopologyModel& model);
// Aligned columns in nvidia-smi's layout, then the NIC legend.
std::string render_relation_matrix(const RelationMatrix& matrix);
// "0000ffff,00000000" (32-bit hex words, most significant first) -> "32-47"; "" -> "N/A".
std::string cpu_list_from_mask(const std::string& mask);

}  // namespace linkscope::topo
