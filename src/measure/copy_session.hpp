#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/adaptive_sampler.hpp"
#include "core/error.hpp"
#include "measure/copy_signals.hpp"
#include "measure/copy_sm_kernel.hpp"
#include "measure/launch_gate.hpp"
#include "model/p2p.hpp"
#include "platform/cuda_resources.hpp"

namespace linkscope::measure {

enum class TransferKind {
  kCopyEngine,  // cudaMemcpyAsync on the initiator's stream (peer access enabled, or host memory)
  kStaged,      // cudaMemcpyPeerAsync without peer access: the driver stages through host memory
  kSmKernel,    // SmCopyKernel on the initiator
  kSmSplitWarp, // split_warp_copy.hpp on the initiator: src and dst swap alternate segments (verify=false; the
                // caller checks both buffers, see prepare_split_warp_buffers)
};

// One directed copy that a sample repeats `ops` times on its own stream.
struct Transfer {
  TransferKind kind = TransferKind::kCopyEngine;
  int initiator = 0;                   // GPU whose stream (CE) or SMs (kernel) do the work
  const void* src = nullptr;
  void* dst = nullptr;
  int src_device = -1;                 // -1: pinned host memory
  int dst_device = -1;
  std::uint64_t bytes = 0;
  const SmCopyKernel* kernel = nullptr;  // kSmKernel only; must belong to `initiator`
                                         // (src and dst: pointers as the initiator addresses them)
  bool repeat_in_kernel = false;       // kSmKernel: a sample's ops run in one launch (SmCopyKernel::repeats_in_kernel)
  std::uint32_t seed = 0;              // pattern the source holds
  int check_device = 0;                // GPU that poisons and verifies the destination
  void* check_dst = nullptr;           // the destination as check_device addresses it (nullptr: dst)
};

// One gated sample.
struct SampleTimes {
  std::vector<double> seconds;         // per transfer: its own start -> stop events, all ops
  double span_seconds = 0;             // first start -> last stop across every transfer's stream
  std::vector<std::uint64_t> wrong;    // per transfer: mismatching words after the sample
};

// Runs samples of a set of transfers that start together. A sample: poison every destination (so a copy
// that did nothing is caught), hold every stream behind one launch gate, record a shared start event on the
// first stream that every other stream waits for (plan::SpanSync), enqueue `ops` operations per stream between
// its own start and stop events (an SM transfer with repeat_in_kernel: one launch of `ops` copies), make the first
// stream wait for every other stream's stop before a shared stop event, open the gate, wait, then count
// mismatches of every destination on the GPU.
class CopySession {
 public:
  CopySession(std::vector<Transfer> transfers, LaunchGate& gate, bool verify,
              plan::SpanSync sync = plan::SpanSync::kFlag);
  ~CopySession();
  CopySession(const CopySession&) = delete;
  CopySession& operator=(const CopySession&) = delete;

  // Throws TimeoutError when the gate's watchdog fired, DeviceError when CUDA fails.
  SampleTimes run(int ops);
  const std::vector<Transfer>& transfers() const { return transfers_; }

 private:
  struct Lane;
  void enqueue(const Transfer& transfer, cudaStream_t stream, int ops) const;
  void open_window(std::size_t lane, std::uint32_t epoch);
  void close_window(std::size_t lane, std::uint32_t epoch);

  std::vector<Transfer> transfers_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::unique_ptr<platform::Event> span_start_, span_stop_;
  platform::PinnedHostBuffer counters_host_;
  LaunchGate& gate_;
  bool verify_;
  plan::SpanSync sync_;
  StreamSignals signals_;  // kFlag: [0] window open, [i] lane i stopped
  std::uint32_t epoch_ = 0;
};

// Loads the kernels a sample launches (gate spin kernel, signals, poison, mismatch count) on `device` before any
// measurement. With CUDA's lazy module loading (the default since CUDA 12.2) the first launch of a kernel loads
// its module, and loading may wait for the device to go idle: inside a gated sample that device is busy with a
// spin kernel that waits for the host, so the launch would stall until the gate's watchdog fires.
void preload_sample_kernels(int device, LaunchGate& gate);

// Calibration, warm-up and adaptive samples of one point.
struct SamplingSettings {
  SamplingPolicy policy;
  int warmup_samples = 1;
  int forced_ops = 0;  // > 0: use instead of plan::ops_per_sample
};

struct PointSamples {
  int ops = 0;
  std::vector<std::vector<double>> op_seconds;  // [transfer][sample]: seconds per operation
  std::vector<double> aggregate_gbps;           // [sample]: all transfers' bytes / span
  std::vector<double> sum_gbps;                 // [sample]: sum over transfers of bytes / own time (nvbandwidth's total)
  std::vector<std::uint64_t> wrong;             // [transfer]: over every verified sample, warm-up included
  StopReason stop_reason = StopReason::kNotDone;
  Summary primary;                              // what the sampler watched (GB/s)
};

// One calibration sample of 1 operation sets ops per sample (plan::ops_per_sample), then warm-up samples,
// then samples until the sampler is done. The sampler watches the single transfer's GB/s, or with several
// transfers the aggregate GB/s.
PointSamples sample_point(CopySession& session, const SamplingSettings& settings);

// Over the samples of transfer i: GB/s (bytes / time per operation) and microseconds per operation.
Summary bandwidth_summary(const PointSamples& samples, std::size_t transfer, std::uint64_t bytes);
Summary time_us_summary(const PointSamples& samples, std::size_t transfer);

// The status an item gets when measuring it threw: `timeout` for the gate's watchdog, else `error`.
model::PointStatus failure_status(const Error& e);
// The reason of a `wrong` item.
std::string wrong_reason(std::uint64_t wrong_words);

}  // namespace linkscope::measure
