#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json_read.hpp"
#include "model/prediction.hpp"

// The Run's `model` section: NCCL's topology model of one topology XML as data (docs/run-schema.md,
// "### model"). src/topo computes it; rules, hypotheses and reports read it. `bw` values are NCCL's search
// weights in GB/s, not measurements.
namespace linkscope::model {

struct TopoPcie {
  int width = 16;
  double bw = 0;
  std::optional<int> gen;                   // null when NCCL's table does not know the speed string
  std::optional<int> gen_as_nccl_reads_it;  // then: what NCCL takes it for
};

struct TopoNvlinkFact {
  std::optional<std::string> remote;  // node id of the far end
  int count = 0;
  double bw = 0;
  std::optional<std::string> target;
  std::string tclass;
  int xml_line = 0;
};

// One node of NCCL's graph; the fields of its type are set, the others stay empty.
struct TopoNode {
  std::string id;    // "GPU/0-60"
  std::string type;  // GPU, PCI, NVS, CPU, NIC, NET
  int index = 0;
  std::optional<int> xml_line;
  // A GPU, PCI or NIC node's PCIe link to its parent.
  std::optional<std::string> busid, link_speed, link_width;
  std::optional<TopoPcie> pcie;
  // GPU (rank, dev, sm, gdr) and NET (dev, gdr)
  std::optional<int> rank, dev, sm;
  std::optional<bool> gdr;
  std::vector<TopoNvlinkFact> nvlinks;
  std::optional<int> nvlink_count;
  std::optional<double> nvlink_bw_per_link;
  // CPU
  std::optional<int> numaid, arch, vendor, cpu_model;
  std::optional<std::string> arch_name, vendor_name, affinity;
  // PCI
  std::optional<std::string> device;
  // NET
  std::optional<std::string> name, guid;
  std::optional<double> bw, latency;
  std::optional<int> port, maxconn;
  std::optional<bool> coll;
  nlohmann::json extra;
};

struct TopoLink {
  std::string from, to, type;
  double bw = 0;
};

struct TopoPathSummary {
  int count = 0;
  double bw = 0;
  std::string type;
};

struct TopoPath {
  std::string from, to;
  int count = 0;
  double bw = 0;
  std::string type;
  std::vector<std::string> hops;  // empty for very large systems (a note says so)
  std::optional<TopoPathSummary> before_rewrites;
};

struct TopoP2p {
  std::string src, dst;
  int src_rank = -1, dst_rank = -1;
  std::string path_type;
  int count = 0;
  double bw = 0;
  bool p2p = false, read = false;
  int intermediate_rank = -1;
  std::string level, reason;
};

struct TopoGdr {
  std::string gpu;
  int rank = -1;
  std::string net, path_type;
  int count = 0;
  double bw = 0;
  std::string read_mode, write_mode, read_reason, write_reason;
};

// The model in `nvidia-smi topo -m` terms (spec §12): X, NV#, PIX, PXB, PHB, SYS between GPUs (by rank) and NICs.
struct RelationMatrix {
  std::vector<std::string> labels;              // row/column labels: "GPU0"..., "NIC0"...
  std::vector<std::string> node_ids;            // NCCL node id per label ("GPU/0-1d000", "NET/0-0")
  std::vector<std::vector<std::string>> cells;  // cells[row][column]: "X", "NV4", "PIX", "PXB", "PHB", "SYS"
  std::vector<std::string> cpu_affinity;        // per row: CPU list of the GPU's NUMA node ("" for NICs)
  std::vector<std::string> numa_affinity;       // per row: NUMA id ("N/A" when unknown, "" for NICs)
  std::vector<std::string> nic_legend;          // "NIC0: mlx5_0 (NET/0-0)"
};

struct TopologyView {
  bool present = false;  // false: the run has no model section
  std::string nccl_version, source;  // nccl_version: the NCCL asked for (--nccl-version, the loaded libnccl, default)
  std::string nccl_version_modelled;  // the release whose rules the model applied (nccl_version or the nearest)
  std::string nccl_version_from;      // where nccl_version came from
  std::string nccl_version_note;      // why the model follows another release (empty: modelled as asked)
  // NCCL would stop on this topology with this error while building its graph; nothing else is modelled.
  std::optional<std::string> refused;
  bool partial = false;
  int gpu_slots = 0, nic_slots = 0;
  std::vector<std::string> notes;
  std::map<std::string, std::string> env;  // NCCL variables the model was computed under (--env what-ifs)
  double max_bw = 0, total_bw = 0;
  std::string p2p_level, gdr_level;
  std::vector<TopoNode> nodes;
  std::vector<TopoLink> links;
  std::vector<TopoPath> paths;
  std::vector<TopoP2p> p2p;
  std::vector<TopoGdr> gdr;
  std::optional<RelationMatrix> relation_matrix;
  std::vector<std::string> nccl_info_lines;
  Prediction prediction;  // `graphs`, `tuning`: NCCL's channel search and tuner for one communicator of every GPU
  nlohmann::json extra;

  const TopoNode* node(const std::string& id) const;
  // GPU nodes in NCCL's index order.
  std::vector<const TopoNode*> gpus() const;
  const TopoNode* gpu_by_rank(int rank) const;
};

nlohmann::json to_json(const TopologyView& view);
TopologyView topology_view_from_json(const JsonReader& reader);

}  // namespace linkscope::model
