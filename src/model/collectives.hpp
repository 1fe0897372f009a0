#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json_read.hpp"
#include "plan/collective_spec.hpp"

// The results of a collective benchmark as plain data: what the engine returns, the renderers print and
// the Run document stores under measurements.collectives (docs/run-schema.md).
namespace linkscope::model {

using coll::CollectiveOp;
using coll::DataType;
using coll::RankTimeReduction;
using coll::RedOp;

struct TimeSummary {
  double median_us = 0, min_us = 0, max_us = 0, mean_us = 0;
  double cv = 0;            // stddev / mean of the per-iteration times
  double ci_relative = 0;   // relative half-width of the median's 95% CI (0 when fewer than 6 samples)
};

// nccl-tests' -I: CUDA-event time of every timed iteration of a host-timed point and its summary.
struct IterationTimes {
  int skipped = 0;                                  // -K: leading iterations left out of the summary
  std::vector<double> times_us;                     // the slowest process's slowest GPU, per iteration
  std::vector<std::vector<double>> per_process_us;  // each process's slowest GPU per iteration (several processes)
  double min_us = 0, max_us = 0, avg_us = 0, p50_us = 0, p95_us = 0, p99_us = 0, stdev_us = 0, cv_pct = 0;
};

struct CollectivePoint {
  std::uint64_t requested_bytes = 0;
  std::uint64_t bytes = 0;     // nccl-tests' size column (after rounding)
  std::uint64_t count = 0;     // nccl-tests' count column
  bool in_place = false;
  std::size_t samples = 0;     // timed batches: each sample is the mean iteration time of one batch
  std::size_t iterations = 0;  // timed iterations over all samples
  std::optional<TimeSummary> time;        // nothing when the point was not measured
  std::string stop_reason;                // precision-reached, time-budget, sample-limit, fixed-count
  std::optional<double> cputime_us;       // host enqueue time per operation
  std::optional<double> algbw_gbps;       // from the median time
  std::optional<double> busbw_gbps;
  std::optional<std::int64_t> wrong;      // wrong elements over all ranks; nothing when not checked
  // Which clock `time` used: "events" (linkscope's gated CUDA events) or "host-loop" (nccl-tests' host timer
  // around -n iterations; then time is one reading: median = mean = min = max).
  std::string clock = "events";
  std::optional<IterationTimes> per_iteration;  // -I
  std::string status = "ok";              // ok, wrong, timeout, error
  std::optional<std::string> reason;
  nlohmann::json extra;
};

struct DeviceRecord {
  int rank = 0;          // in the whole job (nccl-tests' "Rank")
  int group = 0;         // NCCL_TESTS_SPLIT's colour: the communicator it belongs to (nccl-tests' "Group")
  std::string host;
  int pid = 0;
  int cuda_device = 0;
  int pci_domain = 0, pci_bus = 0, pci_device = 0;
  std::string uuid;      // "GPU-..."
  std::string name;

  std::string pci_bdf() const;  // "0000:00:06.0"
};

nlohmann::json to_json(const DeviceRecord& device);
DeviceRecord device_from_json(const JsonReader& reader);

struct CollectiveSeries {
  CollectiveOp op = CollectiveOp::kAllReduce;
  DataType dtype = DataType::kFloat;
  RedOp redop = RedOp::kSum;
  int root = -1;                          // -1 for unrooted ops
  int nranks = 1;
  std::string launch = "single-process";  // or "mpi"
  bool graph = false;
  RankTimeReduction time_reduction = RankTimeReduction::kMaximum;
  std::string nccl_call;                  // "ncclAlltoAll" or "grouped ncclSend/ncclRecv"
  std::map<std::string, std::string> env; // NCCL variables in effect
  std::vector<DeviceRecord> devices;
  std::vector<CollectivePoint> points;
  nlohmann::json extra;
};

nlohmann::json to_json(const IterationTimes& times);
nlohmann::json to_json(const CollectivePoint& point);
nlohmann::json to_json(const CollectiveSeries& series);
// Reads what to_json wrote; a bad shape is an InputError naming the field.
CollectiveSeries series_from_json(const JsonReader& reader);

// The point with the largest measured size (out of place preferred); nothing when none was measured.
const CollectivePoint* largest_measured_point(const CollectiveSeries& series);

}  // namespace linkscope::model
