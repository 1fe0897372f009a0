#include "topo/comm_constants.hpp"

namespace linkscope::topo {

const char* func_name(int func) {
  static constexpr const char* kNames[kFuncCount] = {"Broadcast", "Reduce", "AllGather", "ReduceScatter",
                                                     "AllReduce"};
  return func >= 0 && func < kFuncCount ? kNames[func] : "?";
}

const char* algo_name(int algo) {
  static constexpr const char* kNames[kAlgoCount] = {"Tree", "Ring", "CollNetDirect", "CollNetChain",
                                                     "NVLS", "NVLSTree", "PAT"};
  return algo >= 0 && algo < kAlgoCount ? kNames[algo] : "?";
}

const char* proto_name(int proto) {
  static constexpr const char* kNames[kProtoCount] = {"LL", "LL128", "Simple"};
  return proto >= 0 && proto < kProtoCount ? kNames[proto] : "?";
}

int log2_down(uint64_t value) {
  if (value == 0) return -1;
  return 63 - __builtin_clzll(value);
}

int64_t pow2_up(int64_t value) {
  // log2Up: 0 for 0 and 1, else the bit width of value - 1.
  const auto below = static_cast<uint64_t>(value) - 1;
  const int bits = value <= 1 ? 0 : 64 - __builtin_clzll(below);
  return int64_t{1} << bits;
}

int64_t pow2_down(int64_t value) { return int64_t{1} << log2_down(static_cast<uint64_t>(value)); }

}  // namespace linkscope::topo
