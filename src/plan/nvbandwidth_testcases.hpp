#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plan/p2p_plan.hpp"

namespace linkscope::plan {

// nvbandwidth v0.8's single-node testcases, each as the copies linkscope runs to answer it
// (`linkscope p2p --testcase NAME`). The one place that knows what each nvbandwidth name means: which buffers
// move, which GPU issues the copy, what runs at the same time, what one matrix cell reports and how nvbandwidth
// titles the matrix (kept verbatim so the outputs diff side by side). docs/nvbandwidth.md is the table in prose.

// What a testcase moves. "c" is the GPU of the reported column, "d" every other GPU.
enum class TestcasePattern {
  kHostToDevice,       // host -> c alone
  kDeviceToHost,       // c -> host alone
  kHostToDeviceBidir,  // CE: host -> c measured while c -> host (twice the bytes) runs; SM: one split-warp kernel
  kDeviceToHostBidir,  // CE: c -> host measured while host -> c (twice the bytes) runs; SM: as kHostToDeviceBidir
  kHostToAll,          // host -> c measured while host -> d (twice the bytes) runs for every d
  kAllToHost,          // c -> host measured while d -> host (twice the bytes) runs for every d
  kHostToAllBidir,     // kHostToDeviceBidir on c plus both directions (twice the bytes) on every d
  kAllToHostBidir,     // kDeviceToHostBidir on c plus both directions (twice the bytes) on every d
  kDeviceToDevice,     // N x N, one directed copy per cell
  kDeviceToDeviceBidir,  // N x N, both directions of a pair at once: each direction and their sum
  kFanOut,             // c -> every d at once (one_to_all_write, all_to_one_read); all bytes over the shared window
  kFanIn,              // every d -> c at once (all_to_one_write, one_to_all_read); all bytes over the shared window
  kDeviceLocalCopy,    // a copy inside c
  kDeviceLatency,      // N x N: a thread on the row's GPU chases pointers in the column's GPU memory
  kHostLatency,        // a thread on c chases pointers in pinned host memory
};

// What one cell reports, from the copies that ran together for it.
//   kFirst  the first copy's own bytes / its own time (nvbandwidth's USE_FIRST_BW); split-warp copies count the
//           bytes of one direction (half the buffer)
//   kTotal  all copies' bytes / the shared window from the first start to the last stop (TOTAL_BW)
//   kEach   every copy's own rate, one matrix each, plus their sum in a last matrix (VECTOR_BW and "Total")
enum class CellValue { kFirst, kTotal, kEach };

// A matrix of a testcase as nvbandwidth prints it: `key` after "SUM", `title` above the matrix.
struct TestcaseMatrixSpec {
  std::string key;
  std::string title;
};

struct NvbandwidthTestcase {
  std::string name;             // nvbandwidth's testcase name, exactly
  TestcasePattern pattern;
  CopyMethod method;            // kCe: cudaMemcpyAsync; kSm: a copy kernel (latency testcases: a pointer chase)
  Initiator initiator;          // GPU to GPU: whose copy engine or SMs copy, kDestination (nvbandwidth's "read")
                                // or kSource ("write"); host copies: always the GPU
  std::vector<TestcaseMatrixSpec> matrices;
  std::string summary;          // one line for --list-testcases
  bool all_gpus_rows = false;   // N x N (device-to-device); otherwise one row
  int min_gpus = 1;             // device-to-device patterns need a peer
  bool latency() const {
    return pattern == TestcasePattern::kDeviceLatency || pattern == TestcasePattern::kHostLatency;
  }
  CellValue value() const;
};

// Every single-node testcase of nvbandwidth v0.8, in nvbandwidth's order (its --list indices).
const std::vector<NvbandwidthTestcase>& nvbandwidth_testcases();
std::vector<std::string> nvbandwidth_testcase_names();
// Throws UsageError: "--testcase foo: unknown nvbandwidth testcase; valid: host_to_device_memcpy_ce, ...".
const NvbandwidthTestcase& find_testcase(std::string_view name);
// Each name once, in the order given. Throws as find_testcase.
std::vector<const NvbandwidthTestcase*> select_testcases(const std::vector<std::string>& names);

// nvbandwidth's buffer per copy (-b default: 512 MiB) and the fixed buffer of its latency testcases (2 MiB),
// and the chain those walk: one 8-byte pointer per 128-byte line in address order, read with plain loads.
inline constexpr std::uint64_t kNvbandwidthBufferBytes = 512ull << 20;
inline constexpr std::uint64_t kNvbandwidthLatencyBytes = 2ull << 20;
inline constexpr ChaseSpec kNvbandwidthChase{ChaseOrder::kStride, ChaseLoad::kPlain, kNvbandwidthLatencyBytes};
// Interfering copies (the unmeasured direction, the other GPUs' host copies) move twice the bytes so that they
// outlast the measured copy, as nvbandwidth's do.
inline constexpr std::uint64_t kInterferenceFactor = 2;

// The buffer a testcase copies: latency testcases always 2 MiB; others `requested`, or 512 MiB when 0.
std::uint64_t testcase_bytes(const NvbandwidthTestcase& testcase, std::uint64_t requested);

// A pinned host buffer in PlannedCopy::src / dst.
inline constexpr int kHostMemory = -1;

// One copy that runs for a cell. For latency testcases: src is the memory's owner (a GPU or kHostMemory),
// dst the reading GPU.
struct PlannedCopy {
  int src = 0;
  int dst = 0;
  int initiator = 0;            // the GPU whose copy engine, SMs or chase kernel does the work
  std::uint64_t bytes = 0;
  bool split_warp = false;      // SM bidirectional host copy: alternate 512-byte segments go each way
  friend bool operator==(const PlannedCopy& a, const PlannedCopy& b) {
    return a.src == b.src && a.dst == b.dst && a.initiator == b.initiator && a.bytes == b.bytes &&
           a.split_warp == b.split_warp;
  }
};

// The copies of one matrix cell (row, column index into `gpus`), all started together behind one gate.
struct CellPlan {
  int row = 0;
  int column = 0;
  std::vector<PlannedCopy> copies;
};

// Every cell of the testcase over `gpus` (the GPUs that form the columns, in order), each copy of `bytes`
// (interfering copies kInterferenceFactor times that). Cells nvbandwidth leaves N/A (the diagonal of N x N
// matrices) are not listed; cells that need peer access are listed and the engine marks them N/A without it.
std::vector<CellPlan> plan_cells(const NvbandwidthTestcase& testcase, const std::vector<int>& gpus,
                                 std::uint64_t bytes);

// "needs 2 GPUs (1 visible)" when the testcase cannot run on `gpu_count` GPUs; empty when it can.
std::string testcase_skip_reason(const NvbandwidthTestcase& testcase, int gpu_count);

// --list-testcases: "index, name:\n\tsummary" per testcase, as nvbandwidth's --list.
std::string list_testcases_text();

}  // namespace linkscope::plan
