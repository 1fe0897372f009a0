#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/run.hpp"

// Other work on the GPUs while the doctor measured, judged from its telemetry (measurements.telemetry). Two kinds of
// evidence, so that machines whose NVML lists no processes (some VMs) are judged too:
//
// - a foreign process: NVML listed it and it is not the doctor's. The sampler decided ownership by pid and process
//   tree (never by name). A pid outside the doctor's PID namespace (NVML reports host pids inside a container) could
//   not be checked: it counts as foreign when it was listed while no step ran or during more than one step, which a
//   step's child (born after the step began, reaped before it ended) never is; listed within one step only, it is
//   "unattributed".
// - idle load: while no linkscope step ran, and at least utilization_settle_s after linkscope's own last work,
//   utilization >= foreign_utilization_min_percent, or memory in use >= foreign_memory_min_bytes while no process of
//   the doctor held that GPU. The steps after such a window ran alongside that load unless it stopped: they are named
//   up to the next window in which the GPU was seen idle.
namespace linkscope::diagnose {

struct ForeignProcess {
  const model::TelemetryProcess* process = nullptr;
  std::optional<int> cuda_ordinal;
  std::string why;  // why it counts as foreign (or why it could not be attributed)
};

struct IdleLoad {
  int nvml_index = 0;
  std::optional<int> cuda_ordinal;
  double from_s = 0, to_s = 0;
  int samples = 0;
  std::optional<int> max_util_percent;
  std::optional<std::int64_t> max_memory_bytes;  // set when memory was part of the evidence
  std::vector<int> steps_after;                  // indices into telemetry.steps
};

struct ForeignActivity {
  const model::Telemetry* telemetry = nullptr;  // null: the run has no telemetry (judged from discovery alone)
  std::vector<ForeignProcess> foreign;
  std::vector<ForeignProcess> unattributed;
  std::vector<IdleLoad> idle_load;

  bool watched() const { return telemetry != nullptr && !telemetry->gpus.empty(); }
  // CUDA ordinals with a foreign process or idle load, ascending.
  std::vector<int> busy_ordinals() const;
  // "pid 777 trainer (2 GiB)" for each foreign process of the GPU; "no process listed, 95% utilization while no
  // linkscope step ran" for idle load.
  std::string text(int cuda_ordinal) const;
};

ForeignActivity find_foreign_activity(const model::Run& run);

// A GPU whose memory other work held while it used no SMs: the memory, not the GPU, was taken (a stopped job, a
// notebook, a leaked allocation). Found when the held memory is at least memory_held_share of the GPU's and no
// utilization was seen while no linkscope step ran.
struct MemoryHolder {
  int cuda_ordinal = 0;
  std::int64_t held_bytes = 0;
  std::int64_t total_bytes = 0;
  std::string who;  // "pid 4242 python3 (137.8 GiB)", or what NVML showed without a process
};
std::vector<MemoryHolder> memory_holders(const ForeignActivity& activity, const model::Run& run);

// "pid 777 trainer (2 GiB)"
std::string process_text(const model::TelemetryProcess& process);

}  // namespace linkscope::diagnose
