#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/collectives.hpp"

// nccl-tests' text output, byte for byte (the 2.19 format: preamble, header, one row per size with an
// out-of-place and an in-place group, footer), so scripts that parse nccl-tests keep working.
// Pure formatting: it is fed numbers and never measures.
namespace linkscope::report {

// The nccl-tests release whose output format this renderer reproduces (printed in the first line so that
// version-sniffing parsers accept it).
inline constexpr const char* kNcclTestsFormatVersion = "2.19.6";

struct NcclTestsDevice {
  int rank = 0;
  int group = 0;
  int pid = 0;
  std::string host;
  int cuda_device = 0;
  int pci_domain = 0, pci_bus = 0, pci_device = 0;
  std::string name;
};

struct NcclTestsPreamble {
  int nccl_headers_code = 0;   // NCCL_VERSION_CODE linkscope was built with
  int nccl_library_code = 0;   // ncclGetVersion() at run time
  std::string program;         // "all_reduce_perf"
  int threads = 1;
  int gpus_per_thread = 1;
  std::uint64_t min_bytes = 0, max_bytes = 0;
  std::uint64_t step = 0;      // factor or bytes
  bool step_is_factor = false;
  int warmup_iters = 0, iters = 0, agg_iters = 1, validation = 1, graph_launches = 0, unalign = 0;
  int blocking = 0;              // -z: a line per mode
  bool per_iteration = false;    // -I
  int per_iteration_skip = 0;    // -K
  bool parallel_init = false;    // -p
  std::vector<NcclTestsDevice> devices;
  std::optional<std::uint64_t> reduced_max_bytes;  // "# Reducing maxBytes to N due to memory limitation"
};

struct NcclTestsCell {
  double time_us = 0;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  std::optional<double> wrong;  // nullopt prints "N/A"
  std::optional<model::IterationTimes> per_iteration;  // -I: i_min i_max i_p99 i_cv% (and the JSON's times)
  // Lines nccl-tests prints in the middle of the row, just before this cell (alltoallv's
  // NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY comes from its bandwidth function): the first continues the row's text.
  std::vector<std::string> lines_before;
};

struct NcclTestsRow {
  std::uint64_t size_bytes = 0;
  std::uint64_t count = 0;
  std::string type;
  std::string redop;
  int root = -1;
  NcclTestsCell out_of_place;
  NcclTestsCell in_place;
  std::optional<std::string> timestamp;  // -S: "YYYY-mm-dd HH:MM:SS" when the row was printed
};

struct NcclTestsFooter {
  int out_of_bounds = 0;               // cells with >= 1 wrong element
  double average_busbw_gbps = 0;       // mean busbw over every printed cell
  std::optional<double> minimum_busbw; // NCCL_TESTS_MIN_BW: prints OK/FAILED
  std::string program;
  std::optional<std::string> error;    // "# error: ..." instead of the final empty line
  // -M: "# GPU memory usage" from the largest amounts any GPU of rank 0 used for NCCL's initialisation, the
  // registered buffers and the collectives.
  struct Memory {
    std::int64_t initialization = 0, user_allocated = 0, collective = 0;
  };
  std::optional<Memory> memory;
};

// nccl-tests' getFloatStr: `value` in a field of `width`, with 2, 1 or 0 decimals as the integer part
// grows, then scientific notation.
std::string nccl_tests_number(double value, int width);

std::string render_nccl_tests_preamble(const NcclTestsPreamble& preamble);
// "#" line plus the three header lines; `cputime` titles the time columns "cputime" (-C), `per_iteration` adds -I's
// columns, `timestamps` -S's.
struct NcclTestsColumns {
  bool cputime = false;
  bool per_iteration = false;
  bool timestamps = false;
};
std::string render_nccl_tests_header(const NcclTestsColumns& columns);
// -S's time stamp of now, local time, as nccl-tests writes it.
std::string nccl_tests_now();
// nccl-tests' amounts in the memory line: "1.50 GB", "12.3 MB", "512 B" (1024-based units).
std::string nccl_tests_memory(std::int64_t bytes);
std::string render_nccl_tests_row(const NcclTestsRow& row);
std::string render_nccl_tests_footer(const NcclTestsFooter& footer);
// Footer's "Avg bus bandwidth" check: FAILED below 90% of NCCL_TESTS_MIN_BW, as nccl-tests decides.
bool nccl_tests_bandwidth_failed(const NcclTestsFooter& footer);

}  // namespace linkscope::report
