#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json_read.hpp"

// The Run's `measurements.telemetry`: what the doctor watched while it measured (src/discover/telemetry_sampler).
// A sampler thread read every GPU about ten times a second (utilization, clocks, throttle reasons, power,
// temperature, memory in use, the processes NVML lists); around every measuring step it read the error counters
// (PCIe replay and AER, NVLink per link, ECC, retired pages, row remapping); NVML's event set delivered Xid errors.
// Facts only: which process is foreign and what a counter increase means is judged in src/diagnose.
// docs/run-schema.md, "measurements.telemetry".
namespace linkscope::model {

// Error counters of one GPU, read at one instant. A counter that could not be read is absent; the GPU's
// `unavailable` map says why (one reason per quantity, not one per reading).
enum class GpuCounter {
  kPcieReplay,                 // NVML: PCIe replay counter (link-level retransmissions)
  kAerCorrectable,             // sysfs aer_dev_correctable TOTAL_ERR_COR
  kAerNonfatal,                // sysfs aer_dev_nonfatal TOTAL_ERR_NONFATAL
  kAerFatal,                   // sysfs aer_dev_fatal TOTAL_ERR_FATAL
  kEccVolatileCorrected,       // NVML: corrected ECC errors since the driver loaded
  kEccVolatileUncorrected,     // NVML: uncorrected ECC errors since the driver loaded
  kRetiredPagesSingleBit,      // NVML: pages retired for repeated single-bit errors (before Ampere)
  kRetiredPagesDoubleBit,      // NVML: pages retired for a double-bit error (before Ampere)
  kRemappedRowsCorrectable,    // NVML: rows remapped after correctable errors (Ampere and later)
  kRemappedRowsUncorrectable,  // NVML: rows remapped after uncorrectable errors (Ampere and later)
};
inline constexpr std::size_t kGpuCounterCount = 10;
// Yes/no states read with the counters.
enum class GpuFlag {
  kRetiredPagesPending,   // pages wait for a reboot to be retired
  kRemappedRowsPending,   // a remapping waits for a GPU reset
  kRemappedRowsFailure,   // a remapping failed at some time
};
inline constexpr std::size_t kGpuFlagCount = 3;
enum class LinkCounter { kReplay, kRecovery, kCrcFlit };  // NVML NVLink DL error counters
inline constexpr std::size_t kLinkCounterCount = 3;

// JSON key and words of each ("pcie_replay", "PCIe replay counter").
std::string_view counter_key(GpuCounter counter);
std::string_view counter_words(GpuCounter counter);
std::string_view flag_key(GpuFlag flag);
std::string_view link_counter_key(LinkCounter counter);    // "replay", "recovery", "crc_flit"
std::string_view link_counter_words(LinkCounter counter);  // "NVLink replay errors", ...
// The key of a link counter in `unavailable` and in increases: "nvlink_crc_flit".
std::string link_counter_quantity(LinkCounter counter);

struct LinkCounters {
  int link = 0;
  std::array<std::optional<std::int64_t>, kLinkCounterCount> counts;
  std::optional<std::int64_t>& operator[](LinkCounter c) { return counts[static_cast<std::size_t>(c)]; }
  const std::optional<std::int64_t>& operator[](LinkCounter c) const { return counts[static_cast<std::size_t>(c)]; }
};

struct GpuCounters {
  std::array<std::optional<std::int64_t>, kGpuCounterCount> counts;
  std::array<std::optional<bool>, kGpuFlagCount> flags;
  std::vector<LinkCounters> nvlinks;  // links whose counters NVML reported

  std::optional<std::int64_t>& operator[](GpuCounter c) { return counts[static_cast<std::size_t>(c)]; }
  const std::optional<std::int64_t>& operator[](GpuCounter c) const { return counts[static_cast<std::size_t>(c)]; }
  std::optional<bool>& operator[](GpuFlag f) { return flags[static_cast<std::size_t>(f)]; }
  const std::optional<bool>& operator[](GpuFlag f) const { return flags[static_cast<std::size_t>(f)]; }
  const LinkCounters* link(int number) const;
};

// A counter that grew between two readings.
struct CounterIncrease {
  std::string quantity;        // counter_key() or link_counter_quantity()
  std::optional<int> link;     // NVLink counters
  std::int64_t increase = 0;
};
// Every counter known in both readings that is larger in `after`, GPU counters first, then links in order.
std::vector<CounterIncrease> counter_increases(const GpuCounters& before, const GpuCounters& after);

// One GPU at one sampling pass; after downsampling, the extremes of the consecutive passes it stands for (highest
// utilization, power, temperature and memory; lowest clocks; every throttle reason seen), so no peak is lost.
struct TelemetrySample {
  double t_s = 0;              // seconds since the sampler started
  double span_s = 0;           // 0 for one pass; else the time from the first to the last pass merged into it
  std::optional<int> step;     // index into Telemetry::steps of the step running at t_s; none between steps
  std::optional<int> gpu_util_percent, memory_util_percent;
  std::optional<int> sm_clock_mhz, memory_clock_mhz;
  std::optional<double> power_w;
  std::optional<int> temperature_c;
  std::optional<std::int64_t> memory_used_bytes;  // allocated device memory (NVML; without the driver's reserve
                                                  // where NVML reports it apart)
  std::vector<std::string> throttle_reasons;      // "gpu_idle", "sw_power_cap", ... (discover's names)
};

// One GPU the sampler watched.
struct TelemetryGpu {
  int nvml_index = 0;
  std::optional<int> cuda_ordinal;
  std::string pci_bdf, uuid;
  std::vector<TelemetrySample> samples;
  // Quantity ("power_w", "processes", "pcie_replay", "aer_correctable", "nvlink_crc_flit", ...) -> why it could
  // not be read on this GPU (the first reason seen).
  std::map<std::string, std::string> unavailable;
  nlohmann::json extra;
};

// One GPU's counters around one step.
struct TelemetryStepGpu {
  int nvml_index = 0;
  GpuCounters before;
  std::optional<GpuCounters> after;  // none while the step runs (a checkpoint) or when it was never read
};

// One measuring step of the doctor (a child `linkscope`), as the sampler saw it.
struct TelemetryStep {
  std::string name;                 // "p2p", "coll all_reduce", ... as the doctor names its steps
  double start_s = 0;
  std::optional<double> end_s;      // none while it runs
  std::vector<std::int64_t> pids;   // the children the doctor started for it
  std::vector<TelemetryStepGpu> gpus;
  nlohmann::json extra;
};

// A process NVML listed on a GPU at some pass (one entry per pid and GPU).
struct TelemetryProcess {
  std::int64_t pid = 0;
  std::string name;        // NVML's name, else /proc/<pid>/comm; empty when neither is known
  int nvml_index = 0;
  // Why it is the doctor's ("the doctor", "started by the doctor for p2p", "in the process group of pid 812",
  // "descendant of pid 800"); empty: not the doctor's, as far as this PID namespace shows.
  std::string owner;
  bool visible = false;    // the pid exists in the doctor's PID namespace (/proc/<pid>): else NVML may report a
                           // pid of another namespace (a container), and ownership could not be checked
  double first_seen_s = 0, last_seen_s = 0;
  int samples = 0;                  // passes that listed it
  std::vector<int> steps;           // indices of the steps during which it was listed
  int samples_outside_steps = 0;    // passes between steps that listed it
  std::optional<std::int64_t> max_used_memory_bytes;
  nlohmann::json extra;

  bool own() const { return !owner.empty(); }
};

struct XidEvent {
  double t_s = 0;
  int nvml_index = 0;
  int xid = 0;
  std::optional<int> step;  // the step running when it arrived
};

// What the sampling cost (its own thread's CPU time): the overhead evidence.
struct SamplingCost {
  double cpu_seconds = 0;                         // the sampler thread's CPU time over the whole run
  std::optional<double> pass_cpu_us_median, pass_cpu_us_max;    // one sampling pass over every GPU
  std::optional<double> pass_wall_us_median, pass_wall_us_max;
  std::optional<double> counters_wall_us_median;  // one counter reading over every GPU (at a step boundary)
};

struct Telemetry {
  double interval_s = 0.1;
  std::string started_at;  // UTC ISO 8601
  double duration_s = 0;
  std::size_t passes = 0;               // sampling passes made
  std::size_t max_samples_per_gpu = 0;  // the bound the samples were downsampled to
  SamplingCost cost;
  std::int64_t doctor_pid = 0;
  std::vector<std::int64_t> own_pids;   // every child pid the doctor registered
  std::string unavailable;              // why nothing could be sampled (NVML unusable; `gpus` is then empty), or
                                        // why a GPU asked for could not be opened; empty when all were sampled
  std::string xid_unavailable;          // why Xid events were not watched; empty when they were
  std::vector<TelemetryGpu> gpus;
  std::vector<TelemetryStep> steps;
  std::vector<TelemetryProcess> processes;
  std::vector<XidEvent> xid_events;
  nlohmann::json extra;

  const TelemetryGpu* gpu(int nvml_index) const;
  // The CUDA ordinal of an NVML index, when CUDA shows that GPU.
  std::optional<int> cuda_ordinal(int nvml_index) const;
  // The step running at `t_s` (a step still running has no end yet).
  std::optional<int> step_at(double t_s) const;
};

nlohmann::json to_json(const Telemetry& telemetry);
Telemetry telemetry_from_json(const JsonReader& reader);

}  // namespace linkscope::model
