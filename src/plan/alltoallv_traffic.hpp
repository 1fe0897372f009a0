#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/environment.hpp"

// alltoallv_perf's per-peer byte counts, as nccl-tests 2.19.6 (src/alltoallv.cu) defines them: either its
// generated distance-weighted pattern (NCCL_TESTS_ALLTOALLV_SPREAD) or a traffic matrix file
// (NCCL_TESTS_ALLTOALLV_MATRIX_FILE, _MATRIX_SCALE). Host-only: the engine asks these functions what to send
// and receive, the check what to expect, the printer what bandwidth to report.
namespace linkscope::coll {

// A square matrix of bytes, [from][to], already scaled and rounded down to 16 bytes as nccl-tests does.
struct TrafficMatrix {
  std::string file;
  int dimension = 0;
  std::vector<std::uint64_t> bytes;  // dimension x dimension, row-major
  std::uint64_t at(int from, int to) const { return bytes[static_cast<std::size_t>(from) * dimension + to]; }
};

struct AlltoallvTraffic {
  double spread = 1.0;                  // 0 uniform .. 1 fully distance-weighted (clamped as nccl-tests does)
  double scale = 1.0;                   // matrix values are multiplied by this (negative -> 0)
  std::optional<TrafficMatrix> matrix;  // matrix mode; the generated pattern otherwise
  bool print_summary = false;           // NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY: per-rank lines after every row
  std::vector<std::string> notes;       // variables nccl-tests ignores silently (not a number)

  // Bytes rank `from` sends to rank `to` when `total_bytes` is the generated pattern's per-rank total (ignored in
  // matrix mode), a multiple of 16.
  std::uint64_t peer_bytes(int from, int to, int nranks, std::uint64_t total_bytes) const;
};

// What one rank sends and receives in all.
struct RankTraffic {
  std::uint64_t send_bytes = 0;
  std::uint64_t recv_bytes = 0;
};
RankTraffic rank_traffic(const AlltoallvTraffic& traffic, int rank, int nranks, std::uint64_t total_bytes);

// The largest per-rank send and receive totals in elements of `element_size` bytes (nccl-tests' max counts: each
// peer's bytes / element size, summed; they size the buffers and the "size" column).
struct MaxCounts {
  std::uint64_t send = 0;
  std::uint64_t recv = 0;
};
MaxCounts alltoallv_max_counts(const AlltoallvTraffic& traffic, int nranks, std::uint64_t total_bytes,
                               std::size_t element_size);

// The variables above, read once (the matrix file too). The file's errors are InputError "FILE:LINE: ...".
AlltoallvTraffic alltoallv_traffic_from_env(const Environment& env);

// Parses a whitespace-separated square matrix; `scale` multiplies every value. InputError naming FILE:LINE for a
// value that is not a number, negative or too large, a row of another width, a non-square or empty matrix.
TrafficMatrix parse_traffic_matrix(std::string_view text, const std::string& file, double scale);

// nccl-tests' matrix-mode rules for a run over `nranks` ranks sweeping min..max bytes (-b, -e): the matrix covers
// the ranks, -b == -e, and -e holds the largest row or column sum. UsageError with nccl-tests' words otherwise.
void check_alltoallv_run(const AlltoallvTraffic& traffic, int nranks, std::uint64_t min_bytes, std::uint64_t max_bytes);

// The NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY block nccl-tests prints for one timed operation of `seconds`.
std::vector<std::string> alltoallv_summary_lines(const AlltoallvTraffic& traffic, int nranks, std::uint64_t total_bytes,
                                                 double seconds);

}  // namespace linkscope::coll
