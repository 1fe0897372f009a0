#pragma once
// The fake NVML's changing state: what the sampler reads (utilization, clocks, power, processes, error counters,
// Xid events) as it changes over time, from a JSON script named by FAKE_NVML_SCRIPT. Without a script the state is
// the recorded idle h200x2 machine (GPU 0 runs pid 4242 python3 with 1 GiB, as before).
//
//   {"timeline": [{"at_s": 0.4, "gpu": 1, "processes": [{"pid": 777, "name": "trainer", "used_memory_bytes": 1e9}],
//                  "utilization_gpu": 90, "sm_clock_mhz": 1980},
//                 {"at_s": 0.6, "gpu": 0, "pcie_replay": 3, "nvlink_crc_flit": {"2": 5}},
//                 {"at_s": 0.7, "gpu": 0, "xid": 79}],
//    "unsupported": ["power", "events"]}
//
// Time is seconds since the latest nvmlInit_v2 of the process (the sampler's own), so a script reads the same
// whatever ran before; the script is read again at every nvmlInit_v2. A process given as {"pid_file": PATH} is
// listed only while PATH holds its pid (tests write the pids of the children they start). Entries apply in order of at_s to their GPU (all GPUs without "gpu"); values are absolute.
// "xid" entries become one event each once their time has come. "unsupported" makes these calls answer
// NVML_ERROR_NOT_SUPPORTED: power, temperature, pcie_replay, ecc, retired_pages, remapped_rows, events, processes,
// nvlink_errors, memory_v2.
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace fake_nvml {

struct Process {
  unsigned pid = 0;
  unsigned long long used_memory_bytes = 0;
  std::string name;
};

struct GpuState {
  unsigned utilization_gpu = 0, utilization_memory = 0;
  unsigned sm_clock_mhz = 345, mem_clock_mhz = 3201;
  unsigned long long clocks_event_reasons = 0x1;  // GPU idle
  unsigned power_mw = 75000, temperature_c = 30;
  unsigned long long memory_used_bytes = 0;
  std::vector<Process> processes;
  unsigned pcie_replay = 0;
  unsigned long long ecc_volatile_corrected = 0, ecc_volatile_uncorrected = 0;
  unsigned retired_pages_single_bit = 0, retired_pages_double_bit = 0;
  bool retired_pages_pending = false;
  unsigned remapped_rows_correctable = 0, remapped_rows_uncorrectable = 0;
  bool remapped_rows_pending = false, remapped_rows_failure = false;
  std::array<unsigned long long, 18> nvlink_replay{}, nvlink_recovery{}, nvlink_crc_flit{};
  unsigned fabric_state = 3;  // nvmlGpuFabricState_t: completed, as on a healthy NVSwitch machine
  int fabric_status = 0;      // nvmlReturn_t of the registration
};

// Restarts the script's clock and its Xid events (nvmlInit_v2).
void restart_clock();
// GPU `gpu` now.
GpuState state(unsigned gpu);
// True when the script makes `call` (a name of the "unsupported" list) answer NOT_SUPPORTED.
bool unsupported(const char* call);

struct Xid {
  unsigned gpu = 0;
  int xid = 0;
};
// The next Xid event whose time has come (taken: it is not returned again); else none, and `wait_s` says how long
// until the next one (a large number when there is none).
std::optional<Xid> take_xid(double& wait_s);

}  // namespace fake_nvml
