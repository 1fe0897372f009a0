#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/telemetry.hpp"

// Evidence during the run: a thread that reads every GPU through NVML about ten times a second (utilization, clocks,
// throttle reasons, power, temperature, memory, the processes listed, each pid attributed to the doctor or not by the
// process tree), the error counters before and after every step (NVML PCIe replay, ECC, retired pages, row
// remapping, NVLink per link; PCIe AER from sysfs), and Xid events from NVML's event set, which it waits on between
// passes. Whatever cannot be read is recorded as unavailable with the reason; nothing here fails the run.
// Cheap by design: one pass is a few NVML queries per GPU (no process names except for new pids, no query the GPU
// said it does not support), the counters are read only at step boundaries, and its own CPU time is recorded.
namespace linkscope::discover {

struct TelemetryGpuIdentity {
  unsigned nvml_index = 0;
  std::optional<int> cuda_ordinal;
  std::string pci_bdf, uuid;
};

struct TelemetryOptions {
  double interval_s = 0.1;             // 0: no thread; passes only through sample_once() (the benchmark)
  std::size_t max_samples_per_gpu = 600;
  std::string nvml_library;            // "" = libnvidia-ml.so.1
  std::string sysfs_root = "/";        // PCIe AER counters and /proc (tests point it at a directory)
  std::vector<TelemetryGpuIdentity> gpus;  // empty: every GPU NVML lists
  std::int64_t doctor_pid = 0;         // 0: this process
};

class TelemetrySampler {
 public:
  explicit TelemetrySampler(TelemetryOptions options);
  ~TelemetrySampler();  // stops the thread
  TelemetrySampler(const TelemetrySampler&) = delete;
  TelemetrySampler& operator=(const TelemetrySampler&) = delete;

  // Opens NVML, takes the first pass and starts the thread. Where NVML cannot be used nothing samples and the
  // telemetry says why; steps are still recorded.
  void start();
  bool sampling() const;
  // Blocks until `seconds` have passed since start() (the doctor's quiet window before its first step).
  void wait_until(double seconds) const;

  // Around each measuring step: the counters are read before it starts and after it ends.
  void begin_step(const std::string& name);
  void end_step();
  // A child the doctor started (ChildSpec::on_start); it and its process group are the doctor's.
  void add_own_pid(std::int64_t pid);

  // What was recorded so far (a checkpoint of an unfinished run).
  model::Telemetry snapshot() const;
  // Stops sampling and returns everything recorded.
  model::Telemetry finish();

  // One sampling pass now, in the caller's thread, for a sampler without a thread (interval_s 0: the benchmark).
  void sample_once();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace linkscope::discover
