#pragma once
// Which NCCL linkscope models, and everything that differs between the versions it models: one table of changes,
// each with the release that introduced it and the NCCL source it comes from (docs/topology-model.md "Versions").
// The model asks `version.has(NcclChange::k...)` at the few places where NCCL's behaviour differs; nothing else in
// the model knows about versions.
//
//   const auto version = linkscope::topo::model_version_for(*linkscope::topo::parse_nccl_version("2.29.7"));
//   if (version.has(linkscope::topo::NcclChange::kGdrDefaultLevelP2c)) ...
#include <optional>
#include <string>
#include <vector>

namespace linkscope::topo {

struct NcclVersion {
  int major = 0, minor = 0, patch = 0;
  std::string text() const;  // "2.29.7"
  friend bool operator<(const NcclVersion& a, const NcclVersion& b) {
    if (a.major != b.major) return a.major < b.major;
    if (a.minor != b.minor) return a.minor < b.minor;
    return a.patch < b.patch;
  }
  friend bool operator==(const NcclVersion& a, const NcclVersion& b) { return !(a < b) && !(b < a); }
  friend bool operator!=(const NcclVersion& a, const NcclVersion& b) { return !(a == b); }
  friend bool operator<=(const NcclVersion& a, const NcclVersion& b) { return !(b < a); }
};

// "2.29.7", "2.29.7-1", "2.29.7+cuda13.0" (the suffix after '-' or '+' is ignored); nullopt for anything else.
std::optional<NcclVersion> parse_nccl_version(const std::string& text);

// One behaviour of NCCL's host model that changed in a release linkscope models.
enum class NcclChange {
  kGdrDefaultLevelP2c,        // NET_GDR_LEVEL defaults to P2C (with NCCL_NET_GDR_C2C), no C2C relabel of P2C
  kGdrLineNamesNodes,         // "GPU Direct RDMA ... for GPU/s-l (rank r) - NET/s-l (...)"
  kP2cOnlyToLocalNets,        // a GPU's path to a NET is P2C only for its closest NETs
  kFallbackGraphSelectsNets,  // the "simple order" graph takes real NETs, or none (bw 0, DIS)
  kSm100Speeds45And80,        // sm100 search speeds gain 45 (intra) and 80 (inter)
  kP2pChannelsFromOwnGpu,     // P2P channels per peer from the rank's own GPU, per net peer from NIC bandwidth
  kNetAttribute,              // <net net="0"> is not a NET (GIN-only devices)
  kBlackwellRingLl128Bw40,    // Blackwell ring LL128 per-channel limit 40/40/40
  kGdrLinesTraceOnly,         // the per GPU x NIC GDR lines are TRACE-only
  kPxnNeedsGdr,               // PXN through a peer GPU only where that GPU has GDR to the NIC
  kSm100InterSpeed86,         // sm100 inter-node search speeds gain 86
  kPreHopperInterSys,         // below sm90 the inter-node search may go up to SYS
  kDeviceNodes,               // every GPU hangs off a DEV (physical device) node
  kBfsTypeFirst,              // the BFS keeps the best path type before bandwidth and hop count
  kLocalNetModuloGpus,        // a GPU's first NET is its dev modulo the GPUs sharing the NETs
  kRailsAndPlanes,            // NETs carry rail and plane; the search never crosses planes
  kGpuPcieFromNvmlCurrent,    // a GPU's PCIe speed and width come from NVML's current link, not sysfs maxima
  kTopoFileHints,             // two "HINT:" lines follow each "KV Convert to int" fallback line
};

// How linkscope's model (one node, every GPU a rank, NVLS and CollNet off) covers a change.
enum class Coverage {
  kModelled,       // implemented and checked against that release's own output
  kOutsideFileModel,  // only NCCL's inter-node search, network peers or its own hardware detection use it: outside
                      // a model of one node's topology file (linkscope's live synthesis writes what sysfs shows)
  kNotModelled,    // changes one-node output but is not implemented: releases from then on are not modelled exactly
};

struct NcclChangeFact {
  NcclChange change;
  NcclVersion since;
  const char* what;    // for the docs table and the notes
  const char* source;  // NCCL file and function at the tag that introduced it
  Coverage coverage;
};

// Every change, oldest first: the one place to read "what differs in 2.30".
const std::vector<NcclChangeFact>& nccl_changes();

// The releases linkscope's model is checked against byte for byte (golden files), oldest first.
const std::vector<NcclVersion>& reference_releases();

struct ModelledVersion {
  NcclVersion requested;
  NcclVersion modelled;        // the reference release whose behaviour the model follows
  std::string requested_from;  // "--nccl-version", "loaded libnccl ...", "default (newest modelled)"
  bool outside_supported = false;  // requested is older or newer than every family modelled
  std::string note;            // for the user when outside_supported (predictions may differ)

  bool has(NcclChange change) const;
};

// "2.29.7", or "2.29.7 (nearest modelled to the asked 2.30.7)" when the model follows another release.
std::string modelled_version_label(const ModelledVersion& version);

// The newest release modelled (the default where no NCCL is loaded).
NcclVersion newest_modelled_version();
// The model for `requested`: its own family's behaviour up to its patch (2.29.3 -> the 2.29.2 behaviour; 2.29.9 ->
// 2.29.7); outside the families modelled, the nearest family's edge release and a note that predictions may differ.
ModelledVersion model_version_for(const NcclVersion& requested, std::string requested_from = "--nccl-version");
// --nccl-version's text, or a UsageError-style message in `error`.
std::optional<ModelledVersion> model_version_from_option(const std::string& text, std::string* error);

}  // namespace linkscope::topo
