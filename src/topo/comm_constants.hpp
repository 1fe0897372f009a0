#pragma once
// NCCL's communicator constants used by the graph search, the channel setup and the tuning model, with
// where NCCL defines them.
#include <cstdint>

namespace linkscope::topo {

// Channels (include/device.h MAXCHANNELS): the ring search asks for at most half of them (init.cc).
inline constexpr int kMaxChannels = 64;
inline constexpr int kMaxTreeArity = 3;  // device.h NCCL_MAX_TREE_ARITY: down[] entries of a tree node

// Search patterns (include/graph.h NCCL_TOPO_PATTERN_*).
inline constexpr int kPatternBalancedTree = 1;  // tree parent + one child on the first GPU, the other child on the second
inline constexpr int kPatternSplitTree = 2;     // tree parent on the first GPU, children on the second
inline constexpr int kPatternTree = 3;          // all network traffic through one GPU
inline constexpr int kPatternRing = 4;
inline constexpr int kPatternNvls = 5;
inline constexpr int kPatternCollnetDirect = 6;

// Collectives in NCCL's order (init.cc ncclFuncStr), algorithms (nccl_tuner.h NCCL_ALGO_*) and protocols
// (NCCL_PROTO_*), the indices of every tuning table.
inline constexpr int kFuncBroadcast = 0;
inline constexpr int kFuncReduce = 1;
inline constexpr int kFuncAllGather = 2;
inline constexpr int kFuncReduceScatter = 3;
inline constexpr int kFuncAllReduce = 4;
inline constexpr int kFuncCount = 5;

inline constexpr int kAlgoTree = 0;
inline constexpr int kAlgoRing = 1;
inline constexpr int kAlgoCollnetDirect = 2;
inline constexpr int kAlgoCollnetChain = 3;
inline constexpr int kAlgoNvls = 4;
inline constexpr int kAlgoNvlsTree = 5;
inline constexpr int kAlgoPat = 6;
inline constexpr int kAlgoCount = 7;

inline constexpr int kProtoLl = 0;
inline constexpr int kProtoLl128 = 1;
inline constexpr int kProtoSimple = 2;
inline constexpr int kProtoCount = 3;

const char* func_name(int func);    // "Broadcast" ... "AllReduce"
const char* algo_name(int algo);    // "Tree" ... "PAT"
const char* proto_name(int proto);  // "LL", "LL128", "Simple"

// Threads per channel (include/device.h).
inline constexpr int kWarpSize = 32;
inline constexpr int kMaxNthreads = 640;        // NCCL_MAX_NTHREADS
inline constexpr int kSimpleMaxNthreads = 512;  // NCCL_SIMPLE_MAX_NTHREADS
inline constexpr int kLlMaxNthreads = 512;      // NCCL_LL_MAX_NTHREADS
inline constexpr int kLl128MaxNthreads = 640;   // NCCL_LL128_MAX_NTHREADS

// Bytes per thread before NCCL adds channels or threads (include/comm.h NCCL_*_THREAD_THRESHOLD).
inline constexpr int64_t kLlThreadThreshold = 8;
inline constexpr int64_t kLl128ThreadThreshold = 8;
inline constexpr int64_t kSimpleThreadThreshold = 64;

// Buffers (init.cc DEFAULT_*_BUFFSIZE; device.h NCCL_STEPS): LL = 8 lines x 512 threads x 8 steps x 16 bytes,
// LL128 = 120 elements x 640 threads x 8 steps x 8 bytes, Simple = 4 MiB.
inline constexpr int kNcclSteps = 8;
inline constexpr int64_t kDefaultLlBuffSize = 8 * 512 * 8 * 16;
inline constexpr int64_t kDefaultLl128BuffSize = 120 * 640 * 8 * 8;
inline constexpr int64_t kDefaultBuffSize = 1 << 22;

// PCI_BW (graph/topo.h): a PCIe Gen3 x16 link; rings at most this fast get 256 Simple threads (tuning.cc).
inline constexpr float kPciBw = 12.0f;

// log2Down / pow2Up / pow2Down / DIVUP of include/bitops.h and include/utils.h (log2i(0) = -1).
int log2_down(uint64_t value);
int64_t pow2_up(int64_t value);
int64_t pow2_down(int64_t value);
inline int64_t div_up(int64_t x, int64_t y) { return (x + y - 1) / y; }

}  // namespace linkscope::topo
