#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// What a collective benchmark measures: the operation, data type, reduction, and nccl-tests' rules for
// turning a requested byte size into element counts and a measured time into algbw/busbw.
// Host-only: no NCCL headers. The enum values of DataType and RedOp equal NCCL's ncclDataType_t and
// ncclRedOp_t so the engine can cast them.
namespace linkscope::coll {

// kHypercube is nccl-tests' hypercube_perf: an all-gather built from log2(n) rounds of pairwise exchanges.
// kAlltoAllv is alltoallv_perf: grouped ncclSend/ncclRecv of per-peer sizes (plan/alltoallv_traffic.hpp).
enum class CollectiveOp {
  kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kAlltoAll, kSendRecv, kGather, kScatter, kHypercube,
  kAlltoAllv
};

struct AlltoallvTraffic;

// All operations in nccl-tests' order.
const std::vector<CollectiveOp>& all_collective_ops();
// "all_reduce", "all_gather", ... (nccl-tests' binary name without "_perf").
std::string_view op_name(CollectiveOp op);
// Accepts op_name() spellings, the same without underscores ("allreduce") and with "_perf".
std::optional<CollectiveOp> parse_op(std::string_view text);
// Broadcast, reduce, gather and scatter have a root rank.
bool op_is_rooted(CollectiveOp op);
// All-reduce, reduce and reduce-scatter combine data with a reduction operator.
bool op_reduces(CollectiveOp op);
// nccl-tests loops sendrecv over the reduction operators too (and prints them) although it ignores them.
bool op_prints_redop(CollectiveOp op);
// Hypercube exchanges with rank ^ 2^k: it needs a power-of-two number of ranks.
bool op_needs_power_of_two_ranks(CollectiveOp op);
// In-place alltoall and sendrecv are not meaningful (the send buffer is overwritten while being sent):
// nccl-tests times them but prints "N/A" for #wrong; so do we.
bool op_checks_in_place(CollectiveOp op);

enum class DataType { kInt8, kUint8, kInt32, kUint32, kInt64, kUint64, kHalf, kFloat, kDouble, kBfloat16, kF8e4m3, kF8e5m2 };

const std::vector<DataType>& all_data_types();
std::string_view type_name(DataType type);  // nccl-tests' names: int8 ... half float double bfloat16 f8e4m3 f8e5m2
std::optional<DataType> parse_type(std::string_view text);  // also fp16/float16, fp32/float32, fp64/float64, bf16
std::size_t type_size(DataType type);
bool type_is_float(DataType type);
bool type_is_signed_integer(DataType type);
// fp8 types need compute capability 9.0 (and NCCL >= 2.24).
bool type_needs_sm90(DataType type);

enum class RedOp { kSum, kProd, kMax, kMin, kAvg, kMulSum };

const std::vector<RedOp>& all_red_ops();
std::string_view red_op_name(RedOp op);  // sum prod max min avg mulsum
std::optional<RedOp> parse_red_op(std::string_view text);

// What nccl-tests prints in the redop column: the reduction where it loops over them, "" for hypercube (it passes
// an empty name), "none" for the other data-movement ops.
std::string nccl_tests_redop_column(CollectiveOp op, RedOp redop);

// How per-rank times become one time, as nccl-tests' -a: 0 rank 0, 1 average, 2 minimum, 3 maximum.
enum class RankTimeReduction { kRank0 = 0, kAverage = 1, kMinimum = 2, kMaximum = 3 };
std::string_view rank_time_reduction_name(RankTimeReduction reduction);  // rank0 avg min max
std::optional<RankTimeReduction> parse_rank_time_reduction(std::string_view text);

// nccl-tests' getCollByteCount: element counts for one requested size. Counts are in elements.
struct CollectiveCounts {
  std::uint64_t send_count = 0;             // elements each rank sends from its send buffer
  std::uint64_t recv_count = 0;             // elements each rank's receive buffer holds
  std::uint64_t param_count = 0;            // the count passed to NCCL (the "count" column)
  std::uint64_t send_in_place_offset = 0;   // in-place: input at recvbuff + this * rank
  std::uint64_t recv_in_place_offset = 0;   // in-place: output at recvbuff + this * rank
  std::size_t element_size = 0;
  // alltoallv: bytes rank i sends rank j at [i * nranks + j]; null for the other ops.
  std::shared_ptr<const std::vector<std::uint64_t>> peer_bytes;

  std::uint64_t send_bytes() const { return send_count * element_size; }
  std::uint64_t recv_bytes() const { return recv_count * element_size; }
  // The "size" column: max(send, recv) bytes.
  std::uint64_t size_bytes() const;
};

// Counts for `requested_bytes` of `op` over `nranks`, rounded exactly as nccl-tests 2.19 rounds them:
// the element count is bytes / element size; gather-type ops (all_gather, reduce_scatter, alltoall, gather,
// scatter) give each rank (count / nranks) elements rounded down to a multiple of 16 bytes.
// alltoallv: `param_count` is that share in the generated pattern (0 with a matrix), send/recv counts are the largest
// per-rank totals (nccl-tests' buffer sizes) and `peer_bytes` every rank's sizes, from `alltoallv` (nullptr: nccl-tests'
// default, the fully distance-weighted pattern).
CollectiveCounts collective_counts(CollectiveOp op, std::uint64_t requested_bytes, std::size_t element_size, int nranks,
                                   const AlltoallvTraffic* alltoallv = nullptr);

// One line explaining why the measured size differs from the requested one, or nothing when it does not.
std::optional<std::string> rounding_note(CollectiveOp op, std::uint64_t requested_bytes, const CollectiveCounts& counts,
                                         int nranks);

// busbw = algbw x factor (nccl-tests doc/PERFORMANCE.md): all_reduce 2(n-1)/n; all_gather, reduce_scatter,
// alltoall, gather, scatter (n-1)/n; broadcast, reduce, sendrecv 1; hypercube 1 (its algbw already counts the
// (n-1) blocks each rank receives).
double bus_factor(CollectiveOp op, int nranks);

struct Bandwidth {
  double algbw_gbps = 0;
  double busbw_gbps = 0;
};
// algbw from the "count" column as nccl-tests' getBw computes it (GB = 1e9 bytes). `seconds` must be > 0.
Bandwidth collective_bandwidth(CollectiveOp op, std::uint64_t param_count, std::size_t element_size, double seconds,
                               int nranks);
// The same with the "size" column too: alltoallv's algbw is the busiest rank's bytes (its size column) / time, as
// nccl-tests' AlltoAllvGetBw; the other ops use only the count.
Bandwidth collective_bandwidth(CollectiveOp op, std::uint64_t param_count, std::uint64_t size_bytes,
                               std::size_t element_size, double seconds, int nranks);

}  // namespace linkscope::coll
