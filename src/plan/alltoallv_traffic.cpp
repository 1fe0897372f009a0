#include "plan/alltoallv_traffic.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/file_io.hpp"

namespace linkscope::coll {

namespace {

constexpr std::uint64_t kAlign = 16;  // nccl-tests rounds every per-peer size down to 16 bytes
// A matrix for thousands of ranks as text: tens of MB at most.
constexpr std::uint64_t kMaxMatrixFileBytes = 256ULL << 20;

std::uint64_t align_down(std::uint64_t bytes) { return bytes & ~(kAlign - 1); }

// strtod over the whole text, as nccl-tests reads its numeric variables; nothing when it is not one number.
std::optional<double> whole_number(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (errno == ERANGE || end == text.c_str() || *end != '\0') return std::nullopt;
  return value;
}

// A variable nccl-tests parses with strtod and ignores when it is not a number (a note says so).
double number_variable(const Environment& env, const char* name, double fallback, std::vector<std::string>& notes) {
  const auto text = env.get(name);
  if (!text) return fallback;
  if (const auto value = whole_number(*text)) return *value;
  notes.push_back(fmt::format("{}='{}' is not a number; nccl-tests ignores it and uses {:g}", name, *text, fallback));
  return fallback;
}

}  // namespace

std::uint64_t AlltoallvTraffic::peer_bytes(int from, int to, int nranks, std::uint64_t total_bytes) const {
  if (matrix) return matrix->at(from, to);
  if (nranks == 1) return align_down(total_bytes);
  // Blend of an equal share and a share proportional to the distance (to - from) mod n, in nccl-tests' order of
  // floating-point operations so the rounding matches it exactly.
  const int distance = (to - from + nranks) % nranks;
  const auto sum_distances = static_cast<std::uint64_t>(nranks) * static_cast<std::uint64_t>(nranks - 1) / 2;
  const double uniform = static_cast<double>(total_bytes) / static_cast<double>(nranks);
  const double weighted = static_cast<double>(distance) * static_cast<double>(total_bytes) /
                          static_cast<double>(sum_distances);
  const double bytes = (1.0 - spread) * uniform + spread * weighted;
  return align_down(static_cast<std::uint64_t>(bytes));
}

RankTraffic rank_traffic(const AlltoallvTraffic& traffic, int rank, int nranks, std::uint64_t total_bytes) {
  RankTraffic t;
  for (int peer = 0; peer < nranks; ++peer) {
    t.send_bytes += traffic.peer_bytes(rank, peer, nranks, total_bytes);
    t.recv_bytes += traffic.peer_bytes(peer, rank, nranks, total_bytes);
  }
  return t;
}

MaxCounts alltoallv_max_counts(const AlltoallvTraffic& traffic, int nranks, std::uint64_t total_bytes,
                               std::size_t element_size) {
  MaxCounts most;
  // The generated pattern sends and receives the same on every rank; a matrix needs every row and column.
  const int ranks_to_scan = traffic.matrix ? nranks : 1;
  for (int rank = 0; rank < ranks_to_scan; ++rank) {
    std::uint64_t send = 0, recv = 0;
    for (int peer = 0; peer < nranks; ++peer) {
      send += traffic.peer_bytes(rank, peer, nranks, total_bytes) / element_size;
      recv += traffic.peer_bytes(peer, rank, nranks, total_bytes) / element_size;
    }
    most.send = std::max(most.send, send);
    most.recv = std::max(most.recv, recv);
  }
  return most;
}

TrafficMatrix parse_traffic_matrix(std::string_view text, const std::string& file, double scale) {
  TrafficMatrix m;
  m.file = file;
  std::size_t rows = 0, columns = 0, row_columns = 0;
  long line = 1;
  const auto end_row = [&] {
    if (row_columns == 0) return;  // lines without values are not rows
    if (rows == 0) {
      columns = row_columns;
    } else if (row_columns != columns) {
      throw InputError(file, line, fmt::format("alltoallv traffic matrix row {} has {} columns, expected {}", rows,
                                               row_columns, columns));
    }
    ++rows;
    row_columns = 0;
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (c == '\n') {
        end_row();
        ++line;
      }
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    const std::string token(text.substr(i, j - i));
    const auto value = whole_number(token);
    if (!value || std::isnan(*value)) {
      throw InputError(file, line, fmt::format("alltoallv traffic matrix value '{}' at row {} col {} is not a number",
                                               token, rows, row_columns));
    }
    if (*value < 0) {
      throw InputError(file, line, fmt::format("alltoallv traffic matrix value {} at row {} col {} is negative", token,
                                               rows, row_columns));
    }
    const long double scaled = static_cast<long double>(*value) * static_cast<long double>(scale);
    if (scaled > static_cast<long double>(std::numeric_limits<std::uint64_t>::max())) {
      throw InputError(file, line, fmt::format("alltoallv traffic matrix value {} at row {} col {} overflows with "
                                               "scale {:g}",
                                               token, rows, row_columns, scale));
    }
    m.bytes.push_back(align_down(static_cast<std::uint64_t>(scaled)));
    ++row_columns;
    i = j;
  }
  end_row();
  if (rows == 0) throw InputError(file, 0, "the alltoallv traffic matrix is empty");
  if (rows != columns) {
    throw InputError(file, 0, fmt::format("the alltoallv traffic matrix must be square (got {}x{})", rows, columns));
  }
  m.dimension = static_cast<int>(rows);
  return m;
}

AlltoallvTraffic alltoallv_traffic_from_env(const Environment& env) {
  AlltoallvTraffic t;
  t.spread = std::clamp(number_variable(env, "NCCL_TESTS_ALLTOALLV_SPREAD", 1.0, t.notes), 0.0, 1.0);
  t.scale = std::max(0.0, number_variable(env, "NCCL_TESTS_ALLTOALLV_MATRIX_SCALE", 1.0, t.notes));
  if (const auto summary = env.get("NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY")) {
    t.print_summary = std::atoi(summary->c_str()) != 0;
  }
  if (const auto file = env.get("NCCL_TESTS_ALLTOALLV_MATRIX_FILE")) {
    t.matrix = parse_traffic_matrix(read_input_file(*file, kMaxMatrixFileBytes, "alltoallv traffic matrix"), *file, t.scale);
  }
  return t;
}

void check_alltoallv_run(const AlltoallvTraffic& traffic, int nranks, std::uint64_t min_bytes, std::uint64_t max_bytes) {
  if (!traffic.matrix) return;
  const TrafficMatrix& m = *traffic.matrix;
  if (nranks > m.dimension) {
    throw UsageError(fmt::format("Invalid alltoallv traffic matrix, requested nranks ({}) is larger than matrix size "
                                 "({}) in file {}.",
                                 nranks, m.dimension, m.file));
  }
  const MaxCounts most = alltoallv_max_counts(traffic, nranks, 0, 1);
  const std::uint64_t needed = std::max(most.send, most.recv);
  if (max_bytes < needed) {
    throw UsageError(fmt::format("maxBytes (-e) must be at least {} bytes as required by traffic matrix file {} (got "
                                 "{}). Increase -e.",
                                 needed, m.file, max_bytes));
  }
  if (min_bytes != max_bytes) {
    throw UsageError("-b and -e options must be set to the same value (e.g., -b 32M -e 32M) when using alltoallv "
                     "traffic matrix mode.");
  }
}

std::vector<std::string> alltoallv_summary_lines(const AlltoallvTraffic& traffic, int nranks, std::uint64_t total_bytes,
                                                 double seconds) {
  std::vector<std::string> lines;
  if (traffic.matrix) {
    lines.push_back(fmt::format("# NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY: mode=matrix nranks={} matrix_dim={} scale={:.3f} "
                                "time_usec={:.2f}",
                                nranks, traffic.matrix->dimension, traffic.scale, seconds * 1.0e6));
  } else {
    lines.push_back(fmt::format("# NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY: mode=generated nranks={} total_bytes={} "
                                "spread={:.3f} time_usec={:.2f}",
                                nranks, total_bytes, traffic.spread, seconds * 1.0e6));
  }
  const double factor = static_cast<double>(nranks - 1) / static_cast<double>(nranks);
  for (int rank = 0; rank < nranks; ++rank) {
    const RankTraffic t = rank_traffic(traffic, rank, nranks, total_bytes);
    const double algbw = static_cast<double>(std::max(t.send_bytes, t.recv_bytes)) / 1.0e9 / seconds;
    lines.push_back(fmt::format("#   rank={} send_bytes={} recv_bytes={} alg_bw={:.2f} bus_bw={:.2f}", rank, t.send_bytes,
                                t.recv_bytes, algbw, algbw * factor));
  }
  return lines;
}

}  // namespace linkscope::coll
