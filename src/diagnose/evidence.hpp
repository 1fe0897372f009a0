#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/run.hpp"

// Typed facts read once from a RunDocument (docs/run-schema.md): what rules, hypotheses and reports reason about.
// Reading is tolerant: a missing section gives empty lists and `*_known = false`, never an exception.
namespace linkscope::diagnose {

struct NvlinkFacts {
  int link = -1;
  bool active = false;
  std::optional<int> version;
  std::optional<double> speed_gbps;
  std::string remote_type;  // "nvswitch", "gpu", ... ("" when unknown)
  std::string remote_bdf;
  std::optional<long long> replay_errors, recovery_errors, crc_errors;
};

struct ProcessFacts {
  long long pid = 0;
  std::string name;
  std::optional<double> used_memory_bytes;
};

struct PcieFacts {
  std::optional<int> current_gen, max_gen, current_width, max_width;
};

struct EccFacts {
  std::optional<bool> enabled;
  std::optional<long long> volatile_uncorrected, volatile_corrected, aggregate_uncorrected, aggregate_corrected;
};

struct GpuFacts {
  std::optional<int> cuda_ordinal;  // null when hidden from CUDA
  std::optional<int> nvml_index;
  std::string uuid, pci_bdf, name;
  std::optional<int> sm;
  std::optional<int> numa_node;
  std::string cpu_affinity;
  PcieFacts pcie;
  std::string mig_mode;  // "enabled", "disabled", "" unknown
  std::vector<std::string> throttle_reasons;  // normalized: lower case, without NVML prefixes
  bool throttle_known = false;
  EccFacts ecc;
  std::vector<NvlinkFacts> nvlinks;
  bool nvlinks_known = false;
  std::vector<ProcessFacts> processes;
  bool processes_known = false;

  int active_nvlinks() const;
  // Sum of the per-link speeds of active links (GB/s per direction); nullopt without NVLink facts.
  std::optional<double> active_nvlink_rate_gbps() const;
  // The most common per-link speed of active links.
  std::optional<double> typical_link_speed_gbps() const;
  bool links_to_nvswitch() const;
  // PCIe rate per direction from current (or max) generation and width, GB/s.
  std::optional<double> pcie_rate_gbps(bool use_max = false) const;
  // "GPU0" (CUDA ordinal) or "NVML GPU1" when hidden from CUDA.
  std::string label() const;
  // Identical peers: same product name and SM version.
  bool same_kind(const GpuFacts& other) const;
};

struct PairFacts {
  int a = -1, b = -1;
  std::string relation;  // "NV18", "PIX", "PXB", "PHB", "NODE", "SYS"
  std::optional<int> nvlink_count;
  std::map<std::string, std::string> nvml_p2p;  // read/write/nvlink/atomics -> "OK"/"NS"/...
  std::optional<bool> cuda_peer_access;
  bool has_nvlink() const;
};

struct P2pPoint {
  int src = -1, dst = -1;
  std::string method;     // ce, sm_read, sm_write, staged
  std::string direction;  // uni, bidir
  std::uint64_t bytes = 0;
  std::optional<double> bandwidth_gbps, bandwidth_min_gbps, bandwidth_max_gbps, total_gbps;
  std::optional<double> time_us;
  std::optional<double> cv, ci_relative;
  std::optional<long long> samples, wrong;
  std::string status = "ok";  // ok, na, wrong, error, timeout
  std::string reason;
  std::string sm_kernel;  // SM kernel shape label, "" for CE
  bool ok() const { return status == "ok" && bandwidth_gbps.has_value(); }
  // Relative noise of the median: the CI half-width when known, else the CV; nullopt when neither is known.
  std::optional<double> relative_noise() const;
};

struct LatencyPoint {
  int src = -1, dst = -1;
  std::string method;
  std::optional<double> latency_ns;
  std::string status = "ok";
  std::string reason;
};

struct CollectivePoint {
  std::string op;
  int nranks = 0;
  bool graph = false;
  std::map<std::string, std::string> env;
  // The series set NCCL path variables of its own (a ladder layer, a --env what-if): slow on purpose, so it is
  // neither judged against the link rate nor taken as the machine's busbw.
  bool what_if = false;
  std::uint64_t bytes = 0;
  bool in_place = false;
  std::optional<double> time_us, algbw_gbps, busbw_gbps, cv, ci_relative;
  std::optional<long long> wrong;
  std::string status = "ok";  // ok, wrong, timeout, error
  std::string reason;
  bool ok() const { return status == "ok" && busbw_gbps.has_value(); }
  std::optional<double> relative_noise() const { return ci_relative ? ci_relative : cv; }
};

struct PatternEdge {
  int src = -1, dst = -1;
  std::optional<double> bandwidth_gbps, alone_gbps;
};

struct PatternResult {
  std::string name, status, reason, method;
  std::uint64_t bytes = 0;
  std::optional<long long> cpu_node;
  std::vector<PatternEdge> edges;
  std::optional<double> aggregate_gbps, sum_alone_gbps, scaling;
  // True when no GPU is the source of two edges or the destination of two edges.
  bool disjoint() const;
};

struct LadderLayer {
  std::string name, transport, status, reason;
  std::map<std::string, std::string> env;
  std::optional<double> busbw_gbps, peak_gbps, efficiency, slowdown;
};

struct RuntimeConnection {
  std::string context;  // the run's context ("coll all_reduce")
  std::map<std::string, std::string> env;
  int rank = -1, peer = -1, channel = -1;
  std::string transport, detail;
};

// A GPU as NCCL's model sees it (model.nodes/links); `dev` is the NVML index, `rank` the CUDA/NCCL rank.
struct ModelGpu {
  std::string id;  // "GPU/0-60"
  std::optional<int> rank, dev, sm;
  double nvl_bw = 0;      // sum of NVL link weights leaving the GPU
  int nvl_links = 0;      // number of NVL links leaving the GPU (one per remote node)
  bool to_nvswitch = false;
  std::optional<double> pci_bw;  // weight of the GPU's PCI link to its parent
  std::optional<int> nvlink_count;           // from the node, when the model records it
  std::optional<int> pcie_gen, pcie_width;   // from the node's "pcie", when the model records it
  std::string pci_bdf() const;   // from the node id ("GPU/0-83000" -> "0000:83:00.0")
  std::string label() const;     // "GPU/0-83000 (rank 0)"
};

struct ModelPath {
  std::string from, to, type;
  std::optional<double> bw;
  std::optional<int> count;
};

struct ModelP2p {
  int src_rank = -1, dst_rank = -1;
  std::string path_type;
  std::optional<double> bw;
  std::optional<bool> p2p;
};

// The link status rate of a pair: what the wires carry per direction (not NCCL's weight, not a measurement).
struct LinkRate {
  double gbps = 0;
  std::string basis;  // "18 x 26.562 GB/s NVLink" or "PCIe Gen5 x16"
  bool nvlink = false;
};

struct Evidence {
  // system
  bool system_known = false;
  std::vector<GpuFacts> gpus;  // system.gpus (visible to CUDA), then the hidden GPUs of visibility.hidden
  std::vector<PairFacts> pairs;
  std::optional<int> nvml_gpu_count, cuda_device_count;
  std::vector<std::pair<std::string, std::string>> hidden_gpus;  // (uuid or bdf, reason)
  std::string cuda_visible_devices;  // as discovery saw it (visibility.cuda_visible_devices), "" when unset
  int numa_node_count = 0;
  // environment
  std::map<std::string, std::string> env;  // environment.variables
  // model
  bool model_known = false;
  std::map<std::string, std::string> model_env;
  std::vector<ModelGpu> model_gpus;
  std::vector<ModelPath> model_paths;
  // model.relation_matrix: the pair's relation in nvidia-smi terms ("NV18", "PIX", "SYS") from the paths before
  // NCCL rewrites them for its P2P level, keyed by (rank, rank).
  std::map<std::pair<int, int>, std::string> model_relations;
  std::vector<ModelP2p> model_p2p;
  // runtime
  bool runtime_known = false;
  std::string nccl_version;
  std::vector<RuntimeConnection> connections;
  // measurements
  bool p2p_measured = false, collectives_measured = false, patterns_measured = false, ladder_measured = false,
       numa_measured = false;
  std::vector<P2pPoint> p2p;
  std::vector<LatencyPoint> latency;
  std::vector<CollectivePoint> collectives;
  std::vector<PatternResult> patterns;
  std::vector<LadderLayer> ladder;
  std::optional<double> numa_largest_relative_difference;
  std::vector<long long> numa_nodes_measured;

  const GpuFacts* gpu(int cuda_ordinal) const;
  const PairFacts* pair(int a, int b) const;  // either order
  std::vector<int> visible_ordinals() const;
  // Link status rate of the directed pair from `system`; nullopt when the facts are missing.
  std::optional<LinkRate> link_rate(int a, int b) const;
  // The slowest pair link rate among visible GPUs (what bounds a collective).
  std::optional<LinkRate> slowest_link_rate() const;
  // "NV18" / "PIX" ...: the pair's class for grouping (system relation, else the model's relation matrix, else
  // its path type, else "unknown").
  std::string pair_type(int a, int b) const;
  // NCCL model path type between ranks a and b ("NVL", "PHB" ...), "" when not modelled.
  std::string model_path_type(int a, int b) const;
  std::string model_relation(int a, int b) const;
  std::optional<double> model_path_bw(int a, int b) const;
  // GPUs running processes other than linkscope (NVML process list).
  std::vector<int> busy_ordinals() const;
};

Evidence collect_evidence(const RunDocument& run);

// Per-direction PCIe rate of one lane x width: Gen1/2 8b/10b, Gen3-5 128b/130b, Gen6 FLIT (242/256).
std::optional<double> pcie_rate_gbps(std::optional<int> gen, std::optional<int> width);

// Relative difference 1 - min/max (0 when equal; 1 when one is 0).
double relative_gap(double x, double y);

}  // namespace linkscope::diagnose
