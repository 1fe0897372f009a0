#pragma once
// NCCL's topology model of one XML file, for one NCCL version (topo/nccl_versions.hpp): the graph it builds, its
// final paths, its P2P and GDR decisions and what it prints. Pure functions: the environment and the version come in
// as parameters; nothing is printed.
//
//   auto model = linkscope::topo::load_topology_file("topo.xml", linkscope::Environment::from_process(),
//                                                    linkscope::topo::model_version_for({2, 29, 7}));
//   std::cout << linkscope::topo::render_nccl_log(model);
#include <map>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "core/error.hpp"
#include "model/topology_view.hpp"
#include "topo/env_params.hpp"
#include "topo/gdr_policy.hpp"
#include "topo/nccl_versions.hpp"
#include "topo/p2p_policy.hpp"
#include "topo/topo_types.hpp"

namespace linkscope::topo {

// NCCL's P2P decision for one ordered GPU pair (by rank, as NCCL's ncclTopoCheckP2p is asked).
struct P2pDecision {
  int src_gpu = 0;  // GPU node indices
  int dst_gpu = 0;
  int src_rank = 0;
  int dst_rank = 0;
  Path path;        // the final path src -> dst
  P2pCheck check;
};

// NCCL's GDR decision for one GPU and one NET node (by index; the check itself finds the NET by id).
struct GdrDecision {
  int gpu = 0;
  int net = 0;
  int rank = 0;
  Path path;        // the final path GPU -> NET
  GdrCheck read;    // read flag 1
  GdrCheck write;   // read flag 0
};

struct TopologyModel {
  std::string source_name;
  ModelledVersion version;                             // the NCCL asked for and the one whose rules were applied
  TopoSystem system;                                   // graph and final paths
  std::vector<std::vector<Path>> gpu_paths_before_rewrites;  // [g][h] as the BFS left them (before phase 3)
  float max_bw = 0.0f;
  float total_bw = 0.0f;
  bool partial = false;   // a skeleton (NCCL_TOPO_FILE) file: GPUs/NICs come from detection at run time
  int gpu_slots = 0;
  int nic_slots = 0;
  std::vector<std::string> notes;       // for the user: partial model, refusals NCCL would make, dropped parts
  std::vector<std::string> info_lines;  // NCCL's INFO lines before the system block, in NCCL's order
  NcclParams params;
  int p2p_level = 0;                    // the P2P level in force (default or environment)
  int gdr_level = 0;                    // the GDR level in force
  std::vector<P2pDecision> p2p;         // every ordered GPU pair (self included), rank order
  std::vector<GdrDecision> gdr;         // every GPU (rank order) x NET (index order)
  // GPU indices sorted by rank (then index): the order of GPU0, GPU1, ... in renderings.
  std::vector<int> gpus_by_rank() const;
};

// A well-formed topology that NCCL itself would stop on while building its graph (a GPU whose peers list
// NVLinks to it but which lists none back, too many nodes of a type, ...): still an InputError for the commands
// that need a model (exit 2), but `doctor --xml` turns it into a report that says NCCL will fail and why.
class TopologyRefused : public InputError {
 public:
  TopologyRefused(const std::string& file, long line, const std::string& what) : InputError(file, line, what), reason_(what) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

// Both throw InputError "FILE:LINE: what" for unreadable or malformed input, TopologyRefused for a file NCCL would
// refuse.
TopologyModel load_topology_file(const std::string& path, const Environment& env, const ModelledVersion& version);
TopologyModel load_topology_string(const std::string& xml_text, const std::string& source_name,
                                   const Environment& env, const ModelledVersion& version);

// What NCCL prints at NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=GRAPH (without the "host:pid:tid [d] NCCL INFO "
// prefix): loading/KV/env/GDR lines, the system block, the path lines; then linkscope's P2P and GDR lines.
std::string render_nccl_log(const TopologyModel& model);
// Human view: nvidia-smi-style matrix, NCCL path per pair, P2P and GDR decisions, legend.
std::string render_topology_text(const TopologyModel& model);
// The Run's typed `model` section (model::TopologyView; docs/run-schema.md).
model::TopologyView topology_view(const TopologyModel& model);

}  // namespace linkscope::topo
