#include "runtime/nccl_tuning_log.hpp"

#include <array>
#include <cstdint>
#include <regex>
#include <utility>

#include "runtime/log_lines.hpp"

namespace linkscope::runtime {

namespace {

template <std::size_t N>
std::string lookup(const std::array<std::pair<std::string_view, std::string_view>, N>& table, std::string_view key) {
  for (const auto& [from, to] : table) {
    if (from == key) return std::string(to);
  }
  return std::string(key);
}

// Far above NCCL's MAXCHANNELS (64 in every supported version, device.h): a channel number past it is not NCCL's,
// and channels() stays free of overflow.
constexpr int kMaxChannels = 1 << 16;

// The regexes match at least one digit where these are used.
std::optional<std::uint64_t> to_u64(const std::ssub_match& m) { return parse_log_u64(m.str()); }
std::optional<int> to_int(const std::ssub_match& m) { return parse_log_int(m.str()); }

}  // namespace

std::string tuner_algorithm_name(std::string_view nccl_name) {
  // collectives.cc ncclAlgoToString -> the names of the tuning tables (tuning.cc ncclAlgoStr).
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kNames{{{"TREE", "Tree"},
                                                                                       {"RING", "Ring"},
                                                                                       {"COLLNET_DIRECT", "CollNetDirect"},
                                                                                       {"COLLNET_CHAIN", "CollNetChain"},
                                                                                       {"NVLS", "NVLS"},
                                                                                       {"NVLS_TREE", "NVLSTree"},
                                                                                       {"PAT", "PAT"}}};
  return lookup(kNames, nccl_name);
}

std::string tuner_protocol_name(std::string_view nccl_name) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kNames{
      {{"LL", "LL"}, {"LL128", "LL128"}, {"SIMPLE", "Simple"}}};
  return lookup(kNames, nccl_name);
}

std::string collective_name(std::string_view nccl_name) {
  // collectives.cc ncclFuncToString -> nccl-tests' operation names.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kNames{
      {{"AllReduce", "all_reduce"},
       {"AllGather", "all_gather"},
       {"ReduceScatter", "reduce_scatter"},
       {"Broadcast", "broadcast"},
       {"Reduce", "reduce"},
       {"AlltoAll", "alltoall"},
       {"SendRecv", "sendrecv"}}};
  return lookup(kNames, nccl_name);
}

std::optional<model::NcclTuningCall> parse_tuning_line(std::string_view message, std::optional<int> nranks) {
  static const std::regex kCall{
      R"(^(\w+): (\d+) Bytes -> Algo (\w+) proto (\w+) channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\})"};
  static const std::regex kSymmetric{R"(^(\w+) \[Symmetric\]: (\d+) Bytes -> Kernel (\S+) nchannels (\d+))"};
  // Copy-engine collectives (enqueue.cc since 2.29, ce_coll.cc in 2.30.7): "%s [Copy Engine]: %ld Bytes ->
  // cudaMemcpy%s" and (2.30.7) "%s [Hierarchical CE]: %ld Bytes -> RMA proxy + CE"; no channels.
  static const std::regex kCopyEngine{R"(^(\w+) \[(?:Copy Engine|Hierarchical CE)\]: (\d+) Bytes -> (cudaMemcpy|RMA proxy \+ CE))"};
  if (message.find(" Bytes -> ") == std::string_view::npos) return std::nullopt;
  const std::string text(message);
  std::smatch g;
  model::NcclTuningCall call;
  if (std::regex_search(text, g, kCall)) {
    const auto lo = to_int(g[5]), hi = to_int(g[6]);
    if (!lo || !hi || *lo > *hi || *hi >= kMaxChannels) return std::nullopt;
    call.algorithm = tuner_algorithm_name(g[3].str());
    call.protocol = tuner_protocol_name(g[4].str());
    call.channel_lo = *lo;
    call.channel_hi = *hi;
  } else if (std::regex_search(text, g, kSymmetric)) {
    const auto channels = to_int(g[4]);
    if (!channels || *channels > kMaxChannels) return std::nullopt;
    call.kernel = g[3].str();
    call.algorithm = "Symmetric";
    call.channel_lo = 0;
    call.channel_hi = *channels - 1;
  } else if (std::regex_search(text, g, kCopyEngine)) {
    call.kernel = g[3].str();
    call.algorithm = "CopyEngine";
  } else {
    return std::nullopt;
  }
  const auto bytes = to_u64(g[2]);
  if (!bytes) return std::nullopt;
  call.collective = collective_name(g[1].str());
  call.bytes = *bytes;
  const bool per_rank = g[1] == "AllGather" || g[1] == "ReduceScatter";
  if (!per_rank) {
    call.size_bytes = call.bytes;
  } else if (nranks && *nranks > 0 && call.bytes <= UINT64_MAX / static_cast<std::uint64_t>(*nranks)) {
    call.size_bytes = call.bytes * static_cast<std::uint64_t>(*nranks);
  }
  call.calls = 1;
  return call;
}

}  // namespace linkscope::runtime
