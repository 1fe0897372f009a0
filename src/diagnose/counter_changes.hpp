#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "diagnose/evidence.hpp"

// Error counters that grew during the run (measurements.telemetry): during a step (its counters after against
// before) and between two steps (the next one's before against this one's after), so no increase goes unseen.
namespace linkscope::diagnose {

struct CounterChange {
  int nvml_index = 0;
  std::optional<int> cuda_ordinal;
  std::string quantity;     // model::counter_key or link_counter_quantity ("pcie_replay", "nvlink_crc_flit")
  std::optional<int> link;  // NVLink counters
  std::int64_t increase = 0;
  std::optional<int> step;           // grew during this step
  std::optional<int> previous_step;  // else: between this step and the next
};

std::vector<CounterChange> counter_changes(const model::Telemetry& telemetry);

// "GPU1 (0000:07:00.0)", or "NVML GPU 3 (...)" for a GPU CUDA does not show.
std::string telemetry_gpu_label(const Evidence& evidence, const model::Telemetry& telemetry, int nvml_index);
// "during coll all_reduce (8 B - 64 MiB)" or "between p2p and patterns".
std::string change_where(const Evidence& evidence, const model::Telemetry& telemetry, const CounterChange& change);
// Words for a quantity: "PCIe replay counter", "NVLink CRC flit errors".
std::string quantity_words(const std::string& quantity);

// For each change `keep` selects, one evidence line ("GPU1 (0000:07:00.0) link 3: NVLink CRC flit errors +240 during
// p2p (1 MiB - 256 MiB)") and its GPU in finding.gpus; returns the changes written, in order.
std::vector<CounterChange> add_change_evidence(const Evidence& evidence, const model::Telemetry& telemetry,
                                               model::Finding& finding,
                                               const std::function<bool(const CounterChange&)>& keep);

}  // namespace linkscope::diagnose
