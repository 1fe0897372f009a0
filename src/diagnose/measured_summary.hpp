#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diagnose/context.hpp"

// Small summaries of measurements that several rules quote as evidence.
namespace linkscope::diagnose {

// Per op (out-of-place preferred) the point at the largest size >= min_bytes that measured ok, what-if series
// (their own NCCL path variables) left out.
std::vector<CollectiveRef> largest_collective_points(const Evidence& evidence, std::uint64_t min_bytes);

// "all_reduce busbw 27.4 GB/s at 1 GiB (6% of 478.1 GB/s link rate)".
std::string collective_line(const Evidence& evidence, const CollectiveRef& point);

// Transport class of an NCCL connection string: "P2P", "SHM", "NET", "COLLNET" or the string itself.
std::string transport_class(const std::string& transport);
// 0 P2P (best) .. 2 NET; nullopt for unknown classes.
std::optional<int> transport_rank(const std::string& transport_class);

// "GPU0->GPU1" style summary of the runtime connections: "rank 0->1: SHM/direct/direct on 24 channels".
std::vector<std::string> runtime_transport_lines(const Evidence& evidence, std::size_t max_lines);

// A copy at the bandwidth plateau set against its pair's link status rate.
struct CopyJudgement {
  const model::CopyPoint* point = nullptr;
  LinkRate rate;
  double share = 0;           // measured / rate
  double expected_share = 0;  // ce 0.80, sm 0.75 (expectations table)
  double warn_share = 0;      // below this, bandwidth-below-expected
};

// Per (src, dst, method) the one-direction copy at the largest size >= copy_plateau_min_bytes, for methods with an
// expectation (ce, sm_read, sm_write) and pairs with a known link rate.
std::vector<CopyJudgement> plateau_copies(const Evidence& evidence);

// "ce GPU0->GPU1 393.8 GB/s at 512 MiB (82% of 18 x 26.562 GB/s NVLink = 478.1 GB/s)".
std::string copy_line(const CopyJudgement& judgement);

// Expected and warning shares for a copy method; nullopt for methods without an expectation (staged).
std::optional<std::pair<double, double>> copy_shares(const std::string& method);

// Per directed pair: the fastest one-direction copy (any method) at the largest size >= min_bytes it was
// measured at with status ok. Pairs measured only as "na"/"error" map to a point with that status.
std::map<std::pair<int, int>, const model::CopyPoint*> best_directed_copies(const Evidence& evidence,
                                                                         std::uint64_t min_bytes);
// A copy point measured ok (status ok, with a bandwidth).
bool copy_ok(const model::CopyPoint& point);
// Its median bandwidth (the point must be ok).
double copy_gbps(const model::CopyPoint& point);

}  // namespace linkscope::diagnose
