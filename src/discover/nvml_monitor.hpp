#pragma once
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "discover/nvml_source.hpp"
#include "model/telemetry.hpp"

// NVML kept open while the doctor measures: the readings of one sampling pass, the error counters read around a
// step, and Xid events. Every quantity is optional: a missing entry point or NOT_SUPPORTED makes it unavailable (with
// the reason, once per GPU), never a failure; a quantity the GPU does not support is not asked again.
// Threads: read() and wait_xid() from the sampler's thread, read_counters() from the doctor's; NVML itself is
// thread-safe and each method family keeps its own state.
namespace linkscope::discover {

// One GPU in one pass.
struct GpuReading {
  model::TelemetrySample sample;  // t_s and step are left to the caller
  std::optional<std::vector<ProcessRecord>> processes;  // none: NVML could not list them (see unavailable)
  std::map<std::string, std::string> unavailable;        // quantity -> why this pass could not read it
};

struct CounterReading {
  model::GpuCounters counters;
  std::map<std::string, std::string> unavailable;
};

struct XidArrival {
  unsigned nvml_index = 0;
  int xid = 0;
};

class NvmlMonitor {
 public:
  // Opens `library_path` ("" = libnvidia-ml.so.1) with its own nvmlInit and the handles of `nvml_indices` (empty:
  // every GPU). Null, with the reason, when NVML is unusable.
  static std::unique_ptr<NvmlMonitor> open(const std::string& library_path, const std::vector<unsigned>& nvml_indices,
                                           std::string& reason);
  ~NvmlMonitor();
  NvmlMonitor(const NvmlMonitor&) = delete;
  NvmlMonitor& operator=(const NvmlMonitor&) = delete;

  // The GPUs opened, with what identifies them.
  struct Gpu {
    unsigned nvml_index = 0;
    std::string pci_bdf, uuid;
  };
  const std::vector<Gpu>& gpus() const;
  // GPUs that were asked for but could not be opened, one line each.
  const std::vector<std::string>& errors() const;

  GpuReading read(unsigned nvml_index);
  CounterReading read_counters(unsigned nvml_index);
  std::string process_name(unsigned pid) const;

  // Registers every GPU for Xid critical errors. Empty when at least one GPU is watched, else why none is;
  // `per_gpu` gets the reason for each GPU that could not be registered.
  std::string watch_xid(std::map<unsigned, std::string>& per_gpu);
  bool watching_xid() const;
  // Waits up to `timeout_ms` for one Xid event (returns earlier when one arrives); none on timeout.
  std::optional<XidArrival> wait_xid(unsigned timeout_ms);

 private:
  struct State;
  explicit NvmlMonitor(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace linkscope::discover
