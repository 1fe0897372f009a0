#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/link_rate.hpp"
#include "model/run.hpp"

// Lookup indices over the typed Run for rules, hypotheses and reports. Nothing here is a fact of its own: every
// entry points into the Run (which must outlive the Evidence) or is derived from it in one obvious way (a pair
// listed in both directions seen once, the fastest SM kernel of a point, a series' what-if flag).
namespace linkscope::diagnose {

using model::Finding;
using model::LinkRate;
using model::Severity;

// A GPU pair CUDA shows, once per unordered pair (a < b). Discovery lists both directions; a refusal in either wins.
struct PairView {
  int a = -1, b = -1;
  std::string relation;                         // "NV18", "PIX", "PXB", "PHB", "NODE", "SYS"
  int nvlink_count = 0;
  std::map<std::string, std::string> nvml_p2p;  // read/write/nvlink/atomics -> "OK"/"NS"/...
  std::optional<bool> cuda_peer_access;
  bool has_nvlink() const;
};

// A measured collective point with its series.
struct CollectiveRef {
  const model::CollectiveSeries* series = nullptr;
  const model::CollectivePoint* point = nullptr;
  // The series set NCCL path variables of its own (a ladder layer, a --env what-if): slow on purpose, so it is
  // neither judged against the link rate nor taken as the machine's busbw.
  bool what_if = false;

  std::string op() const;
  bool ok() const { return point->status == "ok" && point->busbw_gbps.has_value(); }
  double busbw() const { return *point->busbw_gbps; }
  std::optional<double> cv() const;
  std::optional<double> relative_noise() const;
};

// One NCCL connection with the run (context, env) it was made in.
struct ConnectionRef {
  const model::RuntimeRun* run = nullptr;
  const model::NcclConnection* connection = nullptr;
};

// A GPU as NCCL's model sees it: its node, and what its links add up to.
struct ModelGpu {
  const model::TopoNode* node = nullptr;
  double nvl_bw = 0;      // sum of NVL link weights leaving the GPU
  int nvl_links = 0;      // number of NVL links leaving the GPU (one per remote node)
  bool to_nvswitch = false;
  std::optional<double> pci_bw;  // weight of the GPU's PCI link to its parent

  const std::string& id() const { return node->id; }
  std::optional<int> rank() const { return node->rank; }
  std::optional<int> dev() const { return node->dev; }
  std::optional<int> sm() const { return node->sm; }
  std::optional<int> nvlink_count() const { return node->nvlink_count; }
  std::string pci_bdf() const;  // from the node id ("GPU/0-83000" -> "0000:83:00.0")
  std::string label() const;    // "GPU/0-83000 (rank 0)"
};

// Relative noise of a copy's median: the CI half-width when known, else the CV.
std::optional<double> relative_noise(const model::CopyPoint& point);
// True when no GPU is the source of two edges or the destination of two edges.
bool is_disjoint(const model::PatternResult& pattern);
// NVML clock-event reasons in one spelling: lower case, without NVML's prefixes ("gpu_idle", "sw_power_cap").
std::vector<std::string> throttle_reasons(const model::Gpu& gpu);
// "enabled", "disabled" or "" (unknown).
std::string mig_mode(const model::Gpu& gpu);
// A run without telemetry names only processes: one whose name says linkscope is taken to be linkscope's own
// (runs with telemetry use pids instead: foreign_activity.hpp).
bool named_like_linkscope(const model::GpuProcess& process);
// Relative difference 1 - min/max (0 when equal; 1 when one is 0).
double relative_gap(double x, double y);

class Evidence {
 public:
  explicit Evidence(const model::Run& run);

  const model::Run& run;
  const model::System& system;
  const model::TopologyView& topology;
  const std::map<std::string, std::string>& env;  // environment.variables

  // system
  std::vector<const model::Gpu*> gpus;  // the GPUs CUDA shows, then the hidden GPUs' facts (cuda_ordinal null)
  std::vector<PairView> pairs;
  std::optional<int> nvml_gpu_count, cuda_device_count;
  std::vector<std::pair<std::string, std::string>> hidden_gpus;  // (bus id (uuid), reason)
  std::string cuda_visible_devices;  // as discovery saw it, "" when unset
  // model
  std::vector<ModelGpu> model_gpus;
  // measurements
  bool p2p_measured = false, collectives_measured = false, patterns_measured = false, ladder_measured = false,
       numa_measured = false, runtime_known = false;
  std::vector<const model::CopyPoint*> p2p;  // one per (src, dst, method, direction, bytes): the fastest SM kernel
  std::vector<CollectiveRef> collectives;
  std::vector<ConnectionRef> connections;
  std::string nccl_version;  // the NCCL the run's runtime layer recorded

  const std::vector<model::LatencyPoint>& latency() const;
  const std::vector<model::PatternResult>& patterns() const;
  const std::vector<model::LadderLayer>& ladder() const;
  const model::NumaSweep* numa() const;

  const model::Gpu* gpu(int cuda_ordinal) const;
  const PairView* pair(int a, int b) const;  // either order
  std::vector<int> visible_ordinals() const;
  // Link status rate of the pair (model/link_rate); nothing when the facts are missing.
  std::optional<LinkRate> link_rate(int a, int b) const;
  // The slowest pair link rate among visible GPUs (what bounds a collective).
  std::optional<LinkRate> slowest_link_rate() const;
  // "NV18" / "PIX" ...: the pair's class for grouping (system relation, else the model's relation matrix, else its
  // path type, else "unknown").
  std::string pair_type(int a, int b) const;
  // NCCL model path type between ranks a and b ("NVL", "PHB" ...), "" when not modelled.
  std::string model_path_type(int a, int b) const;
  // The pair's relation in nvidia-smi terms from the model's relation matrix, "" when absent.
  std::string model_relation(int a, int b) const;
  std::optional<double> model_path_bw(int a, int b) const;
  // For a run without telemetry: GPUs whose discovery-time process list holds a process that is not linkscope's.
  // (With telemetry, Context::foreign judges ownership by pid; see foreign_activity.hpp.)
  std::vector<int> busy_ordinals() const;

 private:
  std::map<std::pair<int, int>, std::string> model_relations_;
};

}  // namespace linkscope::diagnose
