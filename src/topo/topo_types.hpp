#pragma once
// The data NCCL builds from a topology XML (src/graph/topo.h): typed nodes with ordered links, and per
// node one path array per target node type. Plain data; the algorithms live in their own files.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace linkscope::topo {

// Node types, in NCCL's order (the order of the path entries on a printed path line).
inline constexpr int kGpu = 0;
inline constexpr int kPci = 1;
inline constexpr int kNvs = 2;
inline constexpr int kCpu = 3;
inline constexpr int kNic = 4;
inline constexpr int kNet = 5;
// NCCL 2.30's physical device between a GPU's PCI parent and its GPU (rank) nodes. NCCL numbers it 7 (2.30.3) or
// 8 (2.30.7) after types linkscope does not model (GIN, RMA); every type NCCL has between NET and DEV has no
// nodes here, so DEV's place after NET gives NCCL's print order.
inline constexpr int kDev = 6;
inline constexpr int kNodeTypeCount = 7;

// Path types: a larger value is a worse path. Link types reuse the value of the path type of the same name.
inline constexpr int kPathLoc = 0;
inline constexpr int kPathNvl = 1;
inline constexpr int kPathNvb = 2;
inline constexpr int kPathC2c = 3;
inline constexpr int kPathPix = 4;
inline constexpr int kPathPxb = 5;
inline constexpr int kPathP2c = 6;
inline constexpr int kPathPxn = 7;
inline constexpr int kPathPhb = 8;
inline constexpr int kPathSys = 9;
inline constexpr int kPathNet = 10;
inline constexpr int kPathDis = 11;

inline constexpr int kLinkLoc = kPathLoc;
inline constexpr int kLinkNvl = kPathNvl;
inline constexpr int kLinkC2c = kPathC2c;
inline constexpr int kLinkPci = kPathPix;
inline constexpr int kLinkSys = kPathSys;
inline constexpr int kLinkNet = kPathNet;

// NCCL's bandwidth constants (GB/s), topo.h.
inline constexpr float kLocBw = 5000.0f;

// CPU enums as NCCL prints them in CPU headers; -1 = undefined.
inline constexpr int kArchX86 = 1;
inline constexpr int kArchPower = 2;
inline constexpr int kArchArm = 3;
inline constexpr int kVendorIntel = 1;
inline constexpr int kVendorAmd = 2;
inline constexpr int kVendorZhaoxin = 3;
inline constexpr int kModelIntelBdw = 1;
inline constexpr int kModelIntelSkl = 2;
inline constexpr int kModelIntelSrp = 3;
inline constexpr int kModelIntelErp = 4;
inline constexpr int kModelYongfeng = 1;
inline constexpr int kUndefined = -1;

// NCCL's graph limits: more nodes of one type, or links on one node, make NCCL fail.
inline constexpr int kMaxNodesPerType = 576;
inline constexpr int kMaxLinksPerNode = 576;
// linkscope's own bound: CPU nodes are fully meshed (SYS links), so their count drives the cost quadratically;
// real hosts have at most a few dozen NUMA nodes.
inline constexpr int kMaxCpuNodes = 64;

const char* node_type_name(int type);  // "GPU", "PCI", "NVS", "CPU", "NIC", "NET", "DEV"
const char* path_type_name(int type);  // "LOC" ... "DIS"; "?" outside the table
const char* link_type_name(int type);  // "LOC", "NVL", "C2C", "PCI", "SYS", "NET"; "" for unused values

struct NodeRef {
  int type = 0;
  int index = -1;
  bool valid() const { return index >= 0; }
  friend bool operator==(NodeRef a, NodeRef b) { return a.type == b.type && a.index == b.index; }
  friend bool operator!=(NodeRef a, NodeRef b) { return !(a == b); }
};

struct Link {
  int type = kLinkLoc;
  float bw = 0.0f;  // GB/s, NCCL search weight
  NodeRef remote;
};

// One path owner -> target. `hops` heads a list in TopoSystem::hop_cells (first hop leaves the owner);
// -1 = no hops. A fresh entry is count 0, bw 0.0, type DIS.
struct Path {
  int hops = -1;
  int count = 0;
  float bw = 0.0f;
  int type = kPathDis;
};

// Immutable, shared list cells: a BFS update conses one hop onto the predecessor's list.
struct HopCell {
  Link link;
  int next = -1;
};

// Where a node came from in the XML, kept for diagnosis (raw strings, as written).
struct XmlFacts {
  long line = 0;
  std::string busid;
  std::string link_speed;
  std::string link_width;
  bool has_pcie_link = false;  // link_speed/link_width were read (a PCI link to the parent exists)
};

// One <nvlink> of a GPU, summed per remote as NCCL does, for diagnosis (count per remote).
struct NvlinkFact {
  std::string target;   // target busid as written ("" for NVSwitch/CPU targets without one)
  std::string tclass;   // as written
  int remote_type = -1; // kGpu, kCpu, kNvs; -1 = remote not in the graph (no link made)
  int64_t remote_id = 0;
  int count = 0;        // summed over elements with the same remote
  float bw = 0.0f;      // summed link bandwidth
  long line = 0;        // first element
};

struct Node {
  int type = kGpu;
  int64_t id = 0;
  // GPU, and DEV (NCCL 2.30: copied from its first <gpu>)
  int dev = kUndefined;
  int rank = kUndefined;
  int sm = 0;
  int gdr = 0;
  std::vector<NvlinkFact> nvlinks;
  // CPU
  int arch = kUndefined;
  int vendor = kUndefined;
  int model = kUndefined;
  int numaid = 0;
  std::string affinity;
  // PCI and DEV: vendor, device, subsystem vendor and subsystem device ids, 16 bits each
  uint64_t device = 0;
  // NET
  int net_dev = 0;
  uint64_t asic = 0;
  int port = 0;
  float net_bw = 0.0f;
  float latency = 0.0f;
  int net_gdr = 0;
  int coll = 0;
  int maxconn = 0;
  std::string net_name;

  XmlFacts xml;
  std::vector<Link> links;
  std::array<std::vector<Path>, kNodeTypeCount> paths;  // empty vector = no array (NCCL: NULL)
};

struct TopoSystem {
  std::array<std::vector<Node>, kNodeTypeCount> nodes;
  std::vector<HopCell> hop_cells;

  Node& at(NodeRef ref) { return nodes[ref.type][ref.index]; }
  const Node& at(NodeRef ref) const { return nodes[ref.type][ref.index]; }
  int count(int type) const { return static_cast<int>(nodes[type].size()); }
  // Index of the FIRST node of `type` with `id` (NCCL's lookup; duplicate ids resolve to the first), -1 if none.
  int index_of(int type, int64_t id) const;
  // The DEV node a GPU hangs off (its LOC link to a DEV), {kDev, -1} before NCCL 2.30.
  NodeRef device_of(int gpu_index) const;
  // A DEV's first GPU (the one NCCL names it by and linkscope keeps its NVLink facts on); any other node, or a DEV
  // without a GPU, is returned as it is.
  NodeRef first_gpu_on(NodeRef node) const;
  // The hops of a path as links, first hop first.
  std::vector<Link> hops_of(const Path& path) const;
};

// NCCL node id: system id in the top byte, local id in the low 56 bits.
inline int64_t compose_id(int system_id, int64_t local) {
  return static_cast<int64_t>((static_cast<uint64_t>(system_id) << 56) +
                              (static_cast<uint64_t>(local) & 0x00ffffffffffffffULL));
}

}  // namespace linkscope::topo
