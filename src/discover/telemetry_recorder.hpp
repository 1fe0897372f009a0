#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/telemetry.hpp"

// The bookkeeping of the telemetry sampler, without NVML or threads: passes, steps and their counters, processes,
// Xid events and costs go in; model::Telemetry comes out. The sampler (telemetry_sampler.cpp) feeds it under its
// lock; tests feed it directly.
namespace linkscope::discover {

// A process NVML listed, with what the sampler found out about it (process_ownership.hpp).
struct ProcessSighting {
  std::int64_t pid = 0;
  std::optional<std::int64_t> used_memory_bytes;
  std::string name;   // NVML's, else /proc/<pid>/comm
  std::string owner;  // why it is the doctor's; empty when not
  bool visible = false;
};

// One GPU in one pass (t_s and step of `sample` are set by the recorder).
struct GpuPass {
  int nvml_index = 0;
  model::TelemetrySample sample;
  std::optional<std::vector<ProcessSighting>> processes;  // none: not listed this pass
  std::map<std::string, std::string> unavailable;
};

struct StepCounters {
  int nvml_index = 0;
  model::GpuCounters counters;
  std::map<std::string, std::string> unavailable;
};

class TelemetryRecorder {
 public:
  // `gpus`: identities only (their samples are recorded here). Samples are kept to at most about 2 x
  // max_samples_per_gpu while recording and downsampled to max_samples_per_gpu in every snapshot.
  TelemetryRecorder(std::vector<model::TelemetryGpu> gpus, double interval_s, std::size_t max_samples_per_gpu,
                    std::string started_at, std::int64_t doctor_pid);

  // One pass that began at `t_s` while `step` ran (running_step() taken when the pass began: a step may end while
  // the pass reads, and the processes it saw were then still the step's).
  void add_pass(double t_s, std::optional<int> step, const std::vector<GpuPass>& gpus);
  void begin_step(const std::string& name, double t_s, const std::vector<StepCounters>& counters);
  void end_step(double t_s, const std::vector<StepCounters>& counters);
  // A child the doctor started: it joins the running step's pids, and a process already recorded with that pid is
  // marked as the doctor's.
  void add_own_pid(std::int64_t pid, const std::string& owner);
  void add_xid(double t_s, int nvml_index, int xid);
  void note_unavailable(int nvml_index, const std::string& quantity, const std::string& reason);
  void note_unavailable(const std::string& xid_reason);
  void add_pass_cost(double cpu_us, double wall_us);
  void add_counter_cost(double wall_us);

  std::optional<int> running_step() const;
  std::size_t passes() const { return passes_; }
  // What was recorded so far: `duration_s` and the sampler thread's CPU seconds are the caller's.
  model::Telemetry snapshot(double duration_s, double cpu_seconds) const;

 private:
  model::TelemetryGpu* gpu(int nvml_index);
  void merge_unavailable(model::TelemetryGpu& gpu, const std::map<std::string, std::string>& reasons);
  void record_process(const ProcessSighting& seen, int nvml_index, double t_s, std::optional<int> step);

  model::Telemetry telemetry_;  // gpus, steps, processes, xid events as recorded (samples not yet downsampled)
  std::size_t passes_ = 0;
  std::vector<double> pass_cpu_us_, pass_wall_us_, counter_wall_us_;
};

}  // namespace linkscope::discover
