#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json_read.hpp"

// The Run's `runtime` section: what NCCL chose in a real run, read from its own log (src/runtime parses the log
// into these objects; docs/run-schema.md, "### runtime").
namespace linkscope::model {

// "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read" and the SHM and NET variants.
struct NcclConnection {
  int rank = -1;
  int peer = -1;
  int channel = -1;
  int conn_index = -1;     // the number after "/" in "Channel 00/0"; -1 when NCCL prints none (SHM)
  std::string side;        // "send" or "receive" for NET lines, empty otherwise
  std::string transport;   // "P2P/direct pointer", "P2P/CUMEM", "P2P/IPC", "SHM", "NET/Socket", "NET/IB" ...
  std::string detail;      // the rest: "read", "read/CE", "direct/direct", "0/GDRDMA" ...
  std::string via;         // everything after "via ", as printed
};

// "GPU/0-60 :... GPU/0-70 (2/370.8/NVL)": NCCL's model of the path between two GPUs.
struct NcclGpuPath {
  std::string from, to;    // NCCL's node ids ("GPU/0-60")
  std::string type;        // LOC NVL NVB C2C PIX PXB PXN PHB SYS NET
  double bandwidth = 0;    // NCCL's search weight, GB/s
  int hops = 0;
};

// "Pattern 4, crossNic 0, nChannels 12, bw 30.000000/30.000000, type NVL/PIX, sameChannels 1"
struct NcclGraph {
  int pattern = 0;
  std::string pattern_name;  // Ring, BalancedTree, SplitTree, Tree, NVLS, CollNetDirect ...
  int channels = 0;
  double bw_intra = 0, bw_inter = 0;
  std::string type_intra, type_inter;
};

// "AllReduce: 67108864 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..23}": what NCCL launched for one call
// (rank 0, NCCL_DEBUG_SUBSYS=TUNING; enqueue.cc). Identical lines are one entry with a count.
struct NcclTuningCall {
  std::string collective;        // nccl-tests' name: "all_reduce", "all_gather" ... (NCCL's "AllReduce" ...)
  std::uint64_t bytes = 0;       // as NCCL prints it: count x element size (AllGather/ReduceScatter: per rank)
  std::uint64_t size_bytes = 0;  // nccl-tests' size: the whole buffer (bytes x ranks for AllGather/ReduceScatter)
  std::string algorithm;         // the tuner's spelling: "Ring", "Tree", "CollNetDirect", "NVLS", "PAT" ...
  std::string protocol;          // "LL", "LL128", "Simple"; empty for a symmetric kernel
  int channel_lo = 0, channel_hi = -1;
  std::string kernel;            // symmetric-memory kernels ("AllReduce [Symmetric]: ... Kernel X"); else empty
  int calls = 0;                 // lines with exactly these values

  int channels() const { return channel_hi - channel_lo + 1; }
};

// "[Rank 0] ncclCommInitRank comm 0x55d0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1f - Init START"
// ("[Rank n] " since NCCL 2.29.2): which GPU a rank drives.
struct NcclRankDevice {
  int rank = -1;
  int cuda_dev = -1;
  int nvml_dev = -1;
  std::string bus_id;  // as NCCL prints it (%lx): "18000"
};

// GPUDirect RDMA between one rank's GPU and one network device, as the log shows it.
struct NcclGpuDirect {
  int rank = -1;
  std::string net;      // as the line names it: "HCA 1" (2.28), "NET/0-1" (2.29 to 2.30.2), "NET/IB/0" (a connection)
  bool enabled = false;
  std::string source;   // "gdr-line": NCCL's per-GPU decision line (INFO up to 2.30.2); "connection": "via NET/IB/0/GDRDMA"
                        // (NCCL 2.30.3 prints the per-GPU line only at TRACE, so only its connections show it)
};

// NCCL's NVLS setup: "NVLS multicast support is [not ]available on dev %d[ (NVLS_NCHANNELS %d)]" (2.28, 2.29) and
// "NVLS tuning: nChannels %d chunkSize %d treeMaxChunkSize %d" (since 2.30.3).
struct NcclNvls {
  std::optional<bool> supported;
  std::optional<int> channels, chunk_size, tree_max_chunk_size;
  bool empty() const { return !supported && !channels && !chunk_size && !tree_max_chunk_size; }
};

// "MNNVL %d cliqueId %x cliqueSize %d cliqueRank %d[ nvlDomainSize %d]" (multi-node NVLink; the domain size since 2.30.3).
struct NcclMnnvl {
  int enabled = 0;
  std::string clique_id;  // hexadecimal as printed
  int clique_size = 0, clique_rank = 0;
  std::optional<int> nvl_domain_size;
};

// NCCL's diagnostic "HINT: ..." lines (since 2.30.7: IB completion and queue-pair errors in net_ib/common.h and
// misc/ibvwrap.cc, a faulty topology file in graph/xml.h). One hint is a first line ("In many cases this error occurs
// when ...") and the advice lines after it.
struct NcclHint {
  std::string kind;                 // "acs-gdr", "nic-same-instance", "ib-timeout", "cross-rail", "ib-gid-index",
                                    // "topology-file"; "other" for text this version of linkscope does not know
  std::string text;                 // the first line without "HINT: "
  std::vector<std::string> advice;  // the following lines without "HINT: "
  // false: printed after another hint of the same burst. NCCL 2.30.7's completion-error switch falls through, so an ACS
  // error also prints the same-instance and IB-timeout hints; only the first of a burst names the likely cause.
  bool primary = true;
  int count = 1;                    // identical hints (several ranks, several errors)
};

struct NcclRuntimeInfo {
  std::optional<std::string> nccl_version;        // "2.28.3" (build suffix dropped)
  std::optional<std::string> nccl_version_full;   // "2.28.3+cuda13.0"
  std::optional<std::string> network;             // "Socket", "IB" ("Using network ...")
  std::optional<int> nranks, nnodes;
  std::optional<int> coll_channels, collnet_channels, nvls_channels, p2p_channels, p2p_channels_per_peer;
  std::vector<NcclConnection> connections;        // deduplicated, in log order
  std::vector<NcclGpuPath> gpu_paths;             // GPU -> other GPU, deduplicated
  std::vector<NcclGraph> graphs;                  // deduplicated
  std::vector<std::string> algorithms_connected;  // "Ring" from "Connected all rings", "Tree", "NVLS", "CollNet"
  std::map<std::string, std::string> environment; // "NCCL_ALGO set by environment to Ring"
  std::map<std::string, std::string> comm_config; // "Comm config nvlinkCentricSched set to 1"
  std::vector<NcclTuningCall> tuning;             // per collective and size, in log order
  std::vector<std::string> warnings;              // "NCCL WARN" lines (first 20)
  std::vector<NcclRankDevice> rank_devices;       // from the Init START/COMPLETE lines, deduplicated
  std::vector<NcclGpuDirect> gpu_direct;          // per rank and NET device, deduplicated
  NcclNvls nvls;
  std::optional<NcclMnnvl> mnnvl;
  std::vector<NcclHint> hints;                    // deduplicated, in log order
  std::size_t nccl_lines = 0;                     // lines that carried an NCCL INFO/WARN message (not stored)
};

// "P2P/CUMEM/read", "P2P/direct pointer", "SHM", "NET/IB/GDRDMA", "NET/Socket".
std::string transport_label(const NcclConnection& connection);

// The calls NCCL made for `collective` at nccl-tests' size `size_bytes` (several when it changed its mind).
std::vector<const NcclTuningCall*> tuning_calls(const NcclRuntimeInfo& info, const std::string& collective,
                                                std::uint64_t size_bytes);

struct TransportCount {
  std::string label;
  int connections = 0;
};
// Connections grouped by transport_label(), most frequent first.
std::vector<TransportCount> transport_summary(const NcclRuntimeInfo& info);
// The most frequent transport label, "none" when NCCL made no peer connection (one rank), or nothing when the log
// showed no connection lines at all.
std::optional<std::string> dominant_transport(const NcclRuntimeInfo& info);

// One process group's NCCL log in one context ("coll all_reduce", "ladder p2p-disabled").
struct RuntimeRun {
  std::string context;
  std::map<std::string, std::string> env;  // NCCL variables the run had
  bool recorded = true;                    // false: "not recorded" (the user's NCCL_DEBUG, a failed capture)
  std::string reason;                      // why not recorded
  NcclRuntimeInfo info;
  nlohmann::json extra;

  // A run whose log could not be recorded.
  static RuntimeRun not_recorded(std::string context, std::string why);
};

struct Runtime {
  std::optional<std::string> nccl_version;
  std::vector<RuntimeRun> runs;
  nlohmann::json extra;

  bool empty() const { return !nccl_version && runs.empty() && (extra.is_null() || extra.empty()); }
};

nlohmann::json to_json(const NcclHint& hint);
NcclHint hint_from_json(const JsonReader& reader);
nlohmann::json to_json(const RuntimeRun& run);
RuntimeRun runtime_run_from_json(const JsonReader& reader);
nlohmann::json to_json(const Runtime& runtime);
Runtime runtime_from_json(const JsonReader& reader);

}  // namespace linkscope::model
