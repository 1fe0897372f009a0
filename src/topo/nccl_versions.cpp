#include "topo/nccl_versions.hpp"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

namespace linkscope::topo {

std::string NcclVersion::text() const { return fmt::format("{}.{}.{}", major, minor, patch); }

std::optional<NcclVersion> parse_nccl_version(const std::string& text) {
  static const std::regex kVersion(R"(([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})([-+][0-9A-Za-z.+_-]{0,64})?)");
  std::smatch m;
  if (!std::regex_match(text, m, kVersion)) return std::nullopt;
  return NcclVersion{std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3])};
}

const std::vector<NcclChangeFact>& nccl_changes() {
  using C = NcclChange;
  static const std::vector<NcclChangeFact> kChanges = {
      {C::kGdrDefaultLevelP2c, {2, 29, 2},
       "NCCL_NET_GDR_LEVEL defaults to P2C when NCCL_NET_GDR_C2C is on (was PXB with P2C paths counted as C2C); a "
       "user level PXB or PIX now disables GDR on CPU-attached (P2C) NICs; GPU->NIC through PCI on a C2C CPU uses "
       "the PCI mapping unless the path is P2C",
       "src/graph/paths.cc ncclTopoCheckGdr", Coverage::kModelled},
      {C::kGdrLineNamesNodes, {2, 29, 2},
       "GDR INFO lines name the nodes: \"GPU Direct RDMA Enabled for GPU/0-118784 (rank 0) - NET/0-0 (distance 5 <= "
       "6, read 1, mode Default)\"; the \"connected via C2C link\" line is gone",
       "src/graph/paths.cc ncclTopoCheckGdr", Coverage::kModelled},
      {C::kP2cOnlyToLocalNets, {2, 29, 2},
       "a GPU->NET path becomes P2C only for the GPU's closest NETs (others keep PHB/SYS so PXN is preferred)",
       "src/graph/paths.cc ncclTopoComputePaths", Coverage::kModelled},
      {C::kFallbackGraphSelectsNets, {2, 29, 2},
       "when the search finds nothing, the \"simple order\" graph takes the first GPU's and last GPU's NETs; without "
       "NETs its inter bandwidth is 0 and type DIS",
       "src/graph/search.cc ncclTopoCompute", Coverage::kModelled},
      {C::kSm100Speeds45And80, {2, 29, 2},
       "sm100 search speeds: intra gains 45.0, inter gains 80.0", "src/graph/search.cc sm100SpeedArrayIntra/Inter",
       Coverage::kModelled},
      {C::kP2pChannelsFromOwnGpu, {2, 29, 2},
       "P2P channels per peer come from the rank's own GPU (was the minimum over every local GPU); per network peer "
       "max(NICs, NIC bandwidth / NCCL_P2P_PER_CHANNEL_NET_BW (14 GB/s))",
       "src/graph/paths.cc ncclTopoComputeP2pChannelsPerPeer, ncclTopoGetNchannels", Coverage::kModelled},
      {C::kNetAttribute, {2, 29, 2},
       "<net net=\"0\"> (a GIN-only device) makes no NET node; gin=\"1\" makes a GIN node (GIN nodes are not "
       "modelled: a note says so)",
       "src/graph/topo.cc ncclTopoAddNic", Coverage::kModelled},
      {C::kPreHopperInterSys, {2, 29, 2},
       "below sm90 the inter-node search may relax its path type up to SYS (balanced trees come back through the CPU)",
       "src/graph/search.cc ncclTopoCompute", Coverage::kOutsideFileModel},
      {C::kBlackwellRingLl128Bw40, {2, 29, 7},
       "Blackwell ring LL128 per-channel bandwidth limit 40/40/40 GB/s (was 73.4/34.6/73.4)",
       "src/graph/tuning.cc perChMaxRingLL128Bws", Coverage::kModelled},
      {C::kGdrLinesTraceOnly, {2, 30, 3},
       "the per GPU x NIC \"GPU Direct RDMA Enabled/Disabled\" lines are TRACE-only (absent at NCCL_DEBUG=INFO)",
       "src/graph/paths.cc ncclTopoCheckGdr", Coverage::kModelled},
      {C::kPxnNeedsGdr, {2, 30, 3},
       "PXN through a peer GPU only where that GPU has GPUDirect RDMA to the NIC",
       "src/graph/paths.cc ncclTopoComputePaths, src/graph/search.cc ncclTopoGetNetDev", Coverage::kModelled},
      {C::kSm100InterSpeed86, {2, 30, 3}, "sm100 inter-node search speeds gain 86.0",
       "src/graph/search.cc sm100SpeedArrayInter", Coverage::kOutsideFileModel},
      {C::kDeviceNodes, {2, 30, 3},
       "every GPU hangs off a DEV (physical device) node that holds its PCI and NVLink links (GPU-DEV is LOC); "
       "paths gain hops, the BFS routes through a DEV only into its own GPU or one NVLink hop (NVB), the search "
       "starts from DEVs",
       "src/graph/topo.cc ncclTopoAddPci/ncclTopoPrint, src/graph/paths.cc ncclTopoSetPaths/ncclTopoCheckP2p, "
       "src/graph/search.cc ncclTopoSearchInit",
       Coverage::kModelled},
      {C::kBfsTypeFirst, {2, 30, 7},
       "the BFS replaces a path when the new path type is better, then when the bandwidth is higher, then when it "
       "has fewer hops (2.28-2.30.4: fewer hops or no path, and higher bandwidth)",
       "src/graph/paths.cc ncclTopoSetPaths", Coverage::kModelled},
      {C::kLocalNetModuloGpus, {2, 30, 7},
       "a GPU's first NET is its dev modulo the number of GPUs sharing its closest NETs (was its dev), then "
       "bit-mirrored when the NET count is a power of two",
       "src/graph/topo.cc ncclTopoGetLocalNetType", Coverage::kModelled},
      {C::kRailsAndPlanes, {2, 30, 7},
       "<net rail=.. plane=..>: the search never pairs NETs of different planes, and with NCCL_CROSS_NIC=0 compares "
       "rails where both are set",
       "src/graph/search.cc ncclTopoSearchCheckNet, src/graph/topo.cc ncclTopoAddNet",
       Coverage::kOutsideFileModel},  // only the inter-node search pairs NETs
      {C::kGpuPcieFromNvmlCurrent, {2, 30, 7},
       "NCCL's own detection reads a GPU's PCIe generation and width from NVML's current link (an idle GPU that "
       "lowers its link speed enters the graph slower); a topology file's values are used as written",
       "src/graph/xml.cc ncclTopoGetXmlFromSys", Coverage::kOutsideFileModel},
      {C::kTopoFileHints, {2, 30, 7},
       "each \"KV Convert to int : could not find value\" line (a value missing from a topology file) is followed by "
       "two \"HINT:\" lines suggesting NCCL_TOPO_DUMP_FILE",
       "src/graph/xml.h kvConvertToInt, printMissingTopoDictValueHint", Coverage::kModelled},
  };
  return kChanges;
}

const std::vector<NcclVersion>& reference_releases() {
  static const std::vector<NcclVersion> kReleases = {{2, 28, 9}, {2, 29, 2}, {2, 29, 7}, {2, 30, 3}, {2, 30, 7}};
  return kReleases;
}

namespace {

// The changes one-node output depends on that the model lacks, introduced after `after` (none: from the start) up to
// and including `up_to`.
std::vector<const NcclChangeFact*> unmodelled_changes(const std::optional<NcclVersion>& after,
                                                      const NcclVersion& up_to) {
  std::vector<const NcclChangeFact*> out;
  for (const auto& change : nccl_changes()) {
    if (change.coverage != Coverage::kNotModelled || up_to < change.since) continue;
    if (!after || *after < change.since) out.push_back(&change);
  }
  return out;
}

// A reference release is modelled exactly when every change up to it is part of the model.
std::vector<NcclVersion> exact_releases() {
  std::vector<NcclVersion> out;
  for (const auto& release : reference_releases()) {
    if (unmodelled_changes(std::nullopt, release).empty()) out.push_back(release);
  }
  return out;
}

}  // namespace

bool ModelledVersion::has(NcclChange change) const {
  for (const auto& fact : nccl_changes()) {
    if (fact.change == change) return fact.coverage != Coverage::kNotModelled && fact.since <= modelled;
  }
  return false;
}

std::string modelled_version_label(const ModelledVersion& version) {
  if (!version.outside_supported) return version.modelled.text();
  return fmt::format("{} (nearest modelled to the asked {})", version.modelled.text(), version.requested.text());
}

NcclVersion newest_modelled_version() { return exact_releases().back(); }

ModelledVersion model_version_for(const NcclVersion& requested, std::string requested_from) {
  const std::vector<NcclVersion> exact = exact_releases();
  ModelledVersion out;
  out.requested = requested;
  out.requested_from = std::move(requested_from);
  const auto same_family = [&](const NcclVersion& v) { return v.major == requested.major && v.minor == requested.minor; };
  std::optional<NcclVersion> in_family;
  for (const auto& release : exact) {
    if (!same_family(release)) continue;
    if (!in_family || release <= requested) in_family = release;  // the newest at or below, else the family's first
  }
  // A change of the same family that the model lacks (a later patch release not modelled yet) makes it inexact too.
  if (in_family && unmodelled_changes(in_family, requested).empty()) {
    out.modelled = *in_family;
    return out;
  }
  out.outside_supported = true;
  if (requested < exact.front()) {
    out.modelled = exact.front();
    out.note = fmt::format("NCCL {} is older than every version linkscope models; modelled as NCCL {}, whose graph, "
                           "search and tuning may differ from it, so predictions may differ from what it does",
                           requested.text(), out.modelled.text());
    return out;
  }
  out.modelled = exact.front();
  for (const auto& release : exact) {
    if (release <= requested) out.modelled = release;
  }
  std::string missing;
  for (const NcclChangeFact* change : unmodelled_changes(std::nullopt, requested)) {
    missing += fmt::format("{}{} ({})", missing.empty() ? "" : "; ", change->what, change->since.text());
  }
  out.note = fmt::format("NCCL {} is not modelled exactly; modelled as NCCL {} (the nearest version modelled), so "
                         "predictions may differ from what it does{}{}",
                         requested.text(), out.modelled.text(), missing.empty() ? "" : "; not modelled: ", missing);
  return out;
}

std::optional<ModelledVersion> model_version_from_option(const std::string& text, std::string* error) {
  const auto version = parse_nccl_version(text);
  if (!version) {
    if (error != nullptr) {
      *error = fmt::format("--nccl-version {}: expected a version such as 2.29.7 (modelled: 2.28.x to {})", text,
                           newest_modelled_version().text());
    }
    return std::nullopt;
  }
  return model_version_for(*version, "--nccl-version");
}

}  // namespace linkscope::topo
