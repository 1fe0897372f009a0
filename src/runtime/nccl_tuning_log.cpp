#include "runtime/nccl_tuning_log.hpp"

#include <array>
#include <cstdlib>
#include <regex>
#include <utility>

namespace linkscope::runtime {

namespace {

template <std::size_t N>
std::string lookup(const std::array<std::pair<std::string_view, std::string_view>, N>& table, std::string_view key) {
  for (const auto& [from, to] : table) {
    if (from == key) return std::string(to);
  }
  return std::string(key);
}

std::uint64_t to_u64(const std::string& s) { return std::strtoull(s.c_str(), nullptr, 10); }

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
  if (message.find(" Bytes -> ") == std::string_view::npos) return std::nullopt;
  const std::string text(message);
  std::smatch g;
  model::NcclTuningCall call;
  if (std::regex_search(text, g, kCall)) {
    call.algorithm = tuner_algorithm_name(g[3].str());
    call.protocol = tuner_protocol_name(g[4].str());
    call.channel_lo = static_cast<int>(to_u64(g[5]));
    call.channel_hi = static_cast<int>(to_u64(g[6]));
  } else if (std::regex_search(text, g, kSymmetric)) {
    call.kernel = g[3].str();
    call.algorithm = "Symmetric";
    call.channel_lo = 0;
    call.channel_hi = static_cast<int>(to_u64(g[4])) - 1;
  } else {
    return std::nullopt;
  }
  call.collective = collective_name(g[1].str());
  call.bytes = to_u64(g[2]);
  const bool per_rank = g[1] == "AllGather" || g[1] == "ReduceScatter";
  if (!per_rank) {
    call.size_bytes = call.bytes;
  } else if (nranks && *nranks > 0) {
    call.size_bytes = call.bytes * static_cast<std::uint64_t>(*nranks);
  }
  call.calls = 1;
  return call;
}

}  // namespace linkscope::runtime
