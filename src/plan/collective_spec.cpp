#include "plan/collective_spec.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "plan/alltoallv_traffic.hpp"

namespace linkscope::coll {

namespace {

struct OpInfo {
  CollectiveOp op;
  std::string_view name;
  bool rooted;
  bool reduces;
  bool checks_in_place;
};

constexpr std::array<OpInfo, 11> kOps{{
    {CollectiveOp::kAllReduce, "all_reduce", false, true, true},
    {CollectiveOp::kAllGather, "all_gather", false, false, true},
    {CollectiveOp::kReduceScatter, "reduce_scatter", false, true, true},
    {CollectiveOp::kBroadcast, "broadcast", true, false, true},
    {CollectiveOp::kReduce, "reduce", true, true, true},
    {CollectiveOp::kAlltoAll, "alltoall", false, false, false},
    {CollectiveOp::kSendRecv, "sendrecv", false, false, false},
    {CollectiveOp::kGather, "gather", true, false, true},
    {CollectiveOp::kScatter, "scatter", true, false, true},
    {CollectiveOp::kHypercube, "hypercube", false, false, true},
    {CollectiveOp::kAlltoAllv, "alltoallv", false, false, false},
}};

const OpInfo& info(CollectiveOp op) { return kOps[static_cast<std::size_t>(op)]; }

struct TypeInfo {
  DataType type;
  std::string_view name;
  std::size_t size;
  bool is_float;
  bool is_signed_integer;
};

constexpr std::array<TypeInfo, 12> kTypes{{
    {DataType::kInt8, "int8", 1, false, true},
    {DataType::kUint8, "uint8", 1, false, false},
    {DataType::kInt32, "int32", 4, false, true},
    {DataType::kUint32, "uint32", 4, false, false},
    {DataType::kInt64, "int64", 8, false, true},
    {DataType::kUint64, "uint64", 8, false, false},
    {DataType::kHalf, "half", 2, true, false},
    {DataType::kFloat, "float", 4, true, false},
    {DataType::kDouble, "double", 8, true, false},
    {DataType::kBfloat16, "bfloat16", 2, true, false},
    {DataType::kF8e4m3, "f8e4m3", 1, true, false},
    {DataType::kF8e5m2, "f8e5m2", 1, true, false},
}};

const TypeInfo& info(DataType type) { return kTypes[static_cast<std::size_t>(type)]; }

constexpr std::array<std::string_view, 6> kRedOpNames{"sum", "prod", "max", "min", "avg", "mulsum"};

std::string lower_without(std::string_view text, char drop) {
  std::string out;
  for (char c : text) {
    if (c == drop) continue;
    out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
  }
  return out;
}

// Per-rank element count rounded down to a multiple of 16 bytes (nccl-tests' `& -(16/eltSize)`).
std::uint64_t aligned_share(std::uint64_t count, std::size_t element_size, int nranks) {
  const std::uint64_t per_rank = count / static_cast<std::uint64_t>(nranks);
  const std::uint64_t granule = element_size >= 16 ? 1 : 16 / element_size;
  return per_rank - per_rank % granule;
}

}  // namespace

const std::vector<CollectiveOp>& all_collective_ops() {
  static const std::vector<CollectiveOp> ops = [] {
    std::vector<CollectiveOp> v;
    for (const auto& op : kOps) v.push_back(op.op);
    return v;
  }();
  return ops;
}

std::string_view op_name(CollectiveOp op) { return info(op).name; }

std::optional<CollectiveOp> parse_op(std::string_view text) {
  std::string wanted = lower_without(text, '_');
  if (wanted.size() > 4 && wanted.compare(wanted.size() - 4, 4, "perf") == 0) wanted.resize(wanted.size() - 4);
  for (const auto& op : kOps) {
    if (lower_without(op.name, '_') == wanted) return op.op;
  }
  return std::nullopt;
}

bool op_is_rooted(CollectiveOp op) { return info(op).rooted; }
bool op_reduces(CollectiveOp op) { return info(op).reduces; }
bool op_prints_redop(CollectiveOp op) { return info(op).reduces || op == CollectiveOp::kSendRecv; }
bool op_checks_in_place(CollectiveOp op) { return info(op).checks_in_place; }

const std::vector<DataType>& all_data_types() {
  static const std::vector<DataType> types = [] {
    std::vector<DataType> v;
    for (const auto& t : kTypes) v.push_back(t.type);
    return v;
  }();
  return types;
}

std::string_view type_name(DataType type) { return info(type).name; }

std::optional<DataType> parse_type(std::string_view text) {
  const std::string wanted = lower_without(text, '\0');
  for (const auto& t : kTypes) {
    if (t.name == wanted) return t.type;
  }
  struct Alias {
    std::string_view name;
    DataType type;
  };
  static constexpr Alias kAliases[] = {
      {"fp16", DataType::kHalf},     {"float16", DataType::kHalf},   {"fp32", DataType::kFloat},
      {"float32", DataType::kFloat}, {"fp64", DataType::kDouble},    {"float64", DataType::kDouble},
      {"bf16", DataType::kBfloat16}, {"char", DataType::kInt8},      {"int", DataType::kInt32},
      {"e4m3", DataType::kF8e4m3},   {"e5m2", DataType::kF8e5m2},
  };
  for (const auto& alias : kAliases) {
    if (alias.name == wanted) return alias.type;
  }
  return std::nullopt;
}

std::size_t type_size(DataType type) { return info(type).size; }
bool type_is_float(DataType type) { return info(type).is_float; }
bool type_is_signed_integer(DataType type) { return info(type).is_signed_integer; }
bool type_needs_sm90(DataType type) { return type == DataType::kF8e4m3 || type == DataType::kF8e5m2; }

const std::vector<RedOp>& all_red_ops() {
  static const std::vector<RedOp> ops{RedOp::kSum, RedOp::kProd, RedOp::kMax, RedOp::kMin, RedOp::kAvg, RedOp::kMulSum};
  return ops;
}

std::string_view red_op_name(RedOp op) { return kRedOpNames[static_cast<std::size_t>(op)]; }

std::optional<RedOp> parse_red_op(std::string_view text) {
  const std::string wanted = lower_without(text, '\0');
  for (std::size_t i = 0; i < kRedOpNames.size(); ++i) {
    if (kRedOpNames[i] == wanted) return static_cast<RedOp>(i);
  }
  if (wanted == "premulsum") return RedOp::kMulSum;
  return std::nullopt;
}

std::string_view rank_time_reduction_name(RankTimeReduction reduction) {
  switch (reduction) {
    case RankTimeReduction::kRank0: return "rank0";
    case RankTimeReduction::kAverage: return "avg";
    case RankTimeReduction::kMinimum: return "min";
    case RankTimeReduction::kMaximum: return "max";
  }
  return "max";
}

std::optional<RankTimeReduction> parse_rank_time_reduction(std::string_view text) {
  for (auto reduction : {RankTimeReduction::kRank0, RankTimeReduction::kAverage, RankTimeReduction::kMinimum,
                         RankTimeReduction::kMaximum}) {
    if (rank_time_reduction_name(reduction) == text) return reduction;
  }
  return std::nullopt;
}

std::uint64_t CollectiveCounts::size_bytes() const { return std::max(send_count, recv_count) * element_size; }

CollectiveCounts collective_counts(CollectiveOp op, std::uint64_t requested_bytes, std::size_t element_size, int nranks,
                                   const AlltoallvTraffic* alltoallv) {
  CollectiveCounts c;
  c.element_size = element_size;
  const std::uint64_t count = requested_bytes / element_size;
  const auto n = static_cast<std::uint64_t>(nranks);
  switch (op) {
    case CollectiveOp::kAllReduce:
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce:
    case CollectiveOp::kSendRecv:
      c.send_count = c.recv_count = c.param_count = count;
      break;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kHypercube: {
      const std::uint64_t base = aligned_share(count, element_size, nranks);
      c.send_count = base;
      c.recv_count = base * n;
      c.param_count = base;
      c.send_in_place_offset = base;
      break;
    }
    case CollectiveOp::kReduceScatter: {
      const std::uint64_t base = aligned_share(count, element_size, nranks);
      c.send_count = base * n;
      c.recv_count = base;
      c.param_count = base;
      c.recv_in_place_offset = base;
      break;
    }
    case CollectiveOp::kAlltoAll: {
      const std::uint64_t base = aligned_share(count, element_size, nranks);
      c.param_count = base;
      c.send_count = c.recv_count = base * n;
      break;
    }
    case CollectiveOp::kGather: {
      const std::uint64_t base = aligned_share(count, element_size, nranks);
      c.send_count = base;
      c.recv_count = base * n;
      c.param_count = base;
      c.send_in_place_offset = base;
      break;
    }
    case CollectiveOp::kScatter: {
      const std::uint64_t base = aligned_share(count, element_size, nranks);
      c.recv_count = base;
      c.send_count = base * n;
      c.param_count = base;
      c.recv_in_place_offset = base;
      break;
    }
    case CollectiveOp::kAlltoAllv: {
      static const AlltoallvTraffic kDefault;
      const AlltoallvTraffic& traffic = alltoallv != nullptr ? *alltoallv : kDefault;
      c.param_count = traffic.matrix ? 0 : aligned_share(count, element_size, nranks);
      const std::uint64_t total = c.param_count * n * element_size;
      const MaxCounts most = alltoallv_max_counts(traffic, nranks, total, element_size);
      c.send_count = most.send;
      c.recv_count = most.recv;
      auto peers = std::make_shared<std::vector<std::uint64_t>>(n * n);
      for (int from = 0; from < nranks; ++from) {
        for (int to = 0; to < nranks; ++to) (*peers)[from * n + to] = traffic.peer_bytes(from, to, nranks, total);
      }
      c.peer_bytes = std::move(peers);
      break;
    }
  }
  return c;
}

std::optional<std::string> rounding_note(CollectiveOp op, std::uint64_t requested_bytes, const CollectiveCounts& counts,
                                         int nranks) {
  const std::uint64_t measured = counts.size_bytes();
  // alltoallv's size column is its busiest rank's total, never the request (nccl-tests says nothing either).
  if (measured == requested_bytes || op == CollectiveOp::kAlltoAllv) return std::nullopt;
  if (requested_bytes % counts.element_size != 0 && measured == requested_bytes / counts.element_size * counts.element_size) {
    return fmt::format("{}: {} bytes is not a whole number of {}-byte elements; measuring {} bytes", op_name(op),
                       requested_bytes, counts.element_size, measured);
  }
  return fmt::format("{}: {} bytes do not split into {} ranks x a multiple of 16 bytes; measuring {} bytes "
                     "({} elements per rank), as nccl-tests does",
                     op_name(op), requested_bytes, nranks, measured, counts.param_count);
}

std::string nccl_tests_redop_column(CollectiveOp op, RedOp redop) {
  if (op_prints_redop(op)) return std::string(red_op_name(redop));
  return op == CollectiveOp::kHypercube ? "" : "none";
}

bool op_needs_power_of_two_ranks(CollectiveOp op) { return op == CollectiveOp::kHypercube; }

double bus_factor(CollectiveOp op, int nranks) {
  const double n = nranks;
  switch (op) {
    case CollectiveOp::kAllReduce: return 2.0 * (n - 1) / n;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAlltoAll:
    case CollectiveOp::kGather:
    case CollectiveOp::kScatter:
    case CollectiveOp::kAlltoAllv: return (n - 1) / n;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce:
    case CollectiveOp::kSendRecv:
    case CollectiveOp::kHypercube: return 1.0;
  }
  return 1.0;
}

Bandwidth collective_bandwidth(CollectiveOp op, std::uint64_t param_count, std::size_t element_size, double seconds,
                               int nranks) {
  // all_gather, reduce_scatter, alltoall, gather and scatter move count x n elements per op.
  double bytes = static_cast<double>(param_count) * static_cast<double>(element_size);
  switch (op) {
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAlltoAll:
    case CollectiveOp::kGather:
    case CollectiveOp::kScatter:
    case CollectiveOp::kAlltoAllv: bytes *= nranks; break;  // alltoallv: its uniform pattern (spread 0)
    case CollectiveOp::kHypercube: bytes *= nranks - 1; break;  // the blocks each rank receives
    default: break;
  }
  Bandwidth bw;
  if (seconds <= 0) return bw;
  bw.algbw_gbps = bytes / 1e9 / seconds;
  bw.busbw_gbps = bw.algbw_gbps * bus_factor(op, nranks);
  return bw;
}

Bandwidth collective_bandwidth(CollectiveOp op, std::uint64_t param_count, std::uint64_t size_bytes,
                               std::size_t element_size, double seconds, int nranks) {
  if (op != CollectiveOp::kAlltoAllv) return collective_bandwidth(op, param_count, element_size, seconds, nranks);
  Bandwidth bw;
  if (seconds <= 0) return bw;
  bw.algbw_gbps = static_cast<double>(size_bytes) / 1e9 / seconds;
  bw.busbw_gbps = bw.algbw_gbps * bus_factor(op, nranks);
  return bw;
}

}  // namespace linkscope::coll
