#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

// What NCCL says it chose, read from its NCCL_DEBUG=INFO log (subsystems INIT, GRAPH, ENV): the transport
// of every peer connection and channel, channel counts, the graphs it searched, the GPU-to-GPU path types
// of its topology model and the variables it took from the environment. Host-only text parsing; lines it
// does not know are skipped, so logs of other NCCL versions degrade to fewer facts, never to an error.
namespace linkscope::runtime {

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

// A transport as a short label: "P2P/CUMEM/read", "P2P/direct pointer", "SHM", "NET/IB/GDRDMA", "NET/Socket".
std::string transport_label(const NcclConnection& connection);

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
  std::vector<std::string> warnings;              // "NCCL WARN" lines (first 20)
  std::size_t nccl_lines = 0;                     // lines that carried an NCCL INFO/WARN message
};

// Parses one or more NCCL logs (concatenated; lines of several processes may interleave).
NcclRuntimeInfo parse_nccl_log(std::string_view text);

struct TransportCount {
  std::string label;
  int connections = 0;
};
// Connections grouped by transport_label(), most frequent first.
std::vector<TransportCount> transport_summary(const NcclRuntimeInfo& info);
// The most frequent transport label, "none" when NCCL made no peer connection (one rank), or nothing when
// the log showed no connection lines at all.
std::optional<std::string> dominant_transport(const NcclRuntimeInfo& info);
// The worst GPU-to-GPU path type of NCCL's model between any two GPUs (NVL < PIX < PXB < PHB < SYS ...),
// i.e. the NCCL_P2P_LEVEL that still allows P2P between all of them; nothing when the log has no GPU paths.
std::optional<std::string> widest_gpu_path_type(const NcclRuntimeInfo& info);

// The worst of NCCL path types (LOC < NVL < NVB < C2C < PIX < PXB < P2C < PXN < PHB < SYS < NET < DIS);
// unknown names are ignored; nothing when none is known.
std::optional<std::string> worst_path_type(const std::vector<std::string>& types);

// JSON of one run for the Run document's `runtime.runs[]` (docs/run-schema.md).
nlohmann::json runtime_run_json(const NcclRuntimeInfo& info, const std::string& context,
                                const std::map<std::string, std::string>& env);

}  // namespace linkscope::runtime
