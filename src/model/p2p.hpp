#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/statistics.hpp"
#include "model/json_read.hpp"
#include "model/p2p_testcases.hpp"
#include "plan/p2p_plan.hpp"

namespace linkscope::model {

// Median, min and max over samples, plus the mean (for latency the mean over issuing SMs is nvbandwidth's figure).
struct Stat3 {
  double median = 0, min = 0, max = 0, mean = 0;
};
Stat3 stat3_of(const Summary& summary);

// ok: measured and verified. na: cannot be measured here (no peer access ...; `reason`). wrong: measured, but
// the destination did not hold the source's bytes. error: CUDA failed for this item. timeout: the launch gate's
// watchdog fired (the host took too long to enqueue; the timing is invalid).
enum class PointStatus { kOk, kNa, kWrong, kError, kTimeout };
std::string to_string(PointStatus status);
PointStatus point_status_from_string(const std::string& text);
// The item's "status" (missing: error); a string that is no status is an InputError naming the field.
PointStatus point_status_from_json(const JsonReader& item);

// One size of one directed copy.
struct CopyPoint {
  int src = 0, dst = 0;
  std::string method;      // ce | sm_read | sm_write | staged
  std::string initiator;   // dst | src: whose copy engine or SMs did the work
  std::string direction = "uni";  // uni | bidir (both directions at once; see total_gbps)
  std::uint64_t bytes = 0;
  std::string sm_kernel;   // SmKernelShape::label() for SM copies
  std::string sm_repeat;   // SM copies: "kernel" (a sample's copies in one launch) or "launch" (one launch each)
  int ops_per_sample = 0;
  std::size_t samples = 0;
  std::string stop_reason;
  std::optional<Stat3> time_us;         // per operation
  std::optional<Stat3> bandwidth_gbps;  // this direction
  std::optional<Stat3> total_gbps;      // bidir: bytes of both directions / the shared window
  std::optional<Stat3> sum_gbps;        // bidir: sum of the directions' own GB/s (nvbandwidth's total)
  double cv = 0;                        // of the bandwidth samples
  double ci_relative = 0;               // half-width of the median's 95% CI / median
  std::uint64_t wrong = 0;              // mismatching 4-byte words, summed over samples
  PointStatus status = PointStatus::kOk;
  std::string reason;
  bool latency_dominated = false;       // see mark_latency_dominated
  nlohmann::json extra;                 // fields of a newer document, kept
};

// One latency measurement of a directed pair.
struct LatencyPoint {
  int src = 0, dst = 0;
  std::string method;           // sm_pointer_chase | ce_small_copy
  std::uint64_t bytes = 0;      // ce_small_copy: bytes per copy; sm_pointer_chase: chain footprint
  std::string chase;            // sm_pointer_chase: ChaseSpec::label() ("random cg 2M"); empty otherwise
  std::optional<Stat3> latency_ns;
  std::size_t samples = 0;
  double cv = 0;
  PointStatus status = PointStatus::kOk;
  std::string reason;
  nlohmann::json extra;
};

// Pinned host memory <-> one GPU by its copy engine (the PCIe layer).
struct HostPoint {
  int gpu = 0;
  std::string direction;  // h2d | d2h
  std::uint64_t bytes = 0;
  int ops_per_sample = 0;
  std::size_t samples = 0;
  std::optional<Stat3> time_us;
  std::optional<Stat3> bandwidth_gbps;
  double cv = 0;
  std::uint64_t wrong = 0;
  PointStatus status = PointStatus::kOk;
  std::string reason;
  nlohmann::json extra;
};

// What identifies a GPU across machines and tools.
struct DeviceInfo {
  int id = 0;
  std::string name;
  std::string pci_bdf;
  std::string uuid;
  int sm_count = 0;
  std::string compute_capability;  // "9.0"
};
nlohmann::json to_json(const DeviceInfo& device);
DeviceInfo device_info_from_json(const JsonReader& reader);

// The largest |a>b - b>a| / mean over the pairs measured both ways, for one method and size.
struct AsymmetryRow {
  std::string method;
  std::string direction;
  std::string sm_kernel;           // SM copies: the kernel shape (several in a tuning run)
  std::uint64_t bytes = 0;
  double max_relative = 0;
  int a = 0, b = 0;                // the pair where it is largest
  bool latency_dominated = false;  // true when either direction is latency-dominated at this size
};

struct P2pResults {
  plan::P2pRequest request;
  std::vector<DeviceInfo> devices;
  std::vector<CopyPoint> points;
  std::vector<LatencyPoint> latency;
  std::vector<HostPoint> host;
  std::vector<std::string> notes;   // e.g. "only one GPU: nothing to pair; local copy measured"
  std::vector<TestcaseResult> testcases;  // --testcase: nvbandwidth's testcases (model/p2p_testcases.hpp)
  nlohmann::json extra;             // fields of a newer document, kept
};

// A copy is latency-dominated when at least half of its time is the fixed cost of any copy, taken as the
// fastest median time among the points of the same curve with <= 64 KiB (at 478 GB/s 64 KiB moves in 0.14 us,
// far below any per-copy overhead, so such a time is essentially the fixed cost). A curve without such a point
// uses the pair's ce_small_copy latency for CE curves, and is not marked otherwise.
inline constexpr std::uint64_t kFixedCostProbeMaxBytes = 64 * 1024;
void mark_latency_dominated(std::vector<CopyPoint>& points, const std::vector<LatencyPoint>& latency);

std::vector<AsymmetryRow> asymmetry_by_size(const std::vector<CopyPoint>& points);

// Worst status across all items: what the process exit code is based on.
std::uint64_t total_wrong(const P2pResults& results);
bool any_status(const P2pResults& results, PointStatus status);

// The JSON of measurements.p2p (docs/run-schema.md) and back.
nlohmann::json to_json(const P2pResults& results);
P2pResults p2p_results_from_json(const JsonReader& section);

nlohmann::json stat3_json(const std::optional<Stat3>& stat);
// `key` of `item`: a {median, min, max, mean} object (min/max/mean default to the median); null when absent.
std::optional<Stat3> stat3_from_json(const JsonReader& item, std::string_view key);

}  // namespace linkscope::model
