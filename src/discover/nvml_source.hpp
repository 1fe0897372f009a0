#pragma once
#include <memory>
#include <string>
#include <vector>

#include "discover/fact.hpp"

namespace linkscope::discover {

// What NVML says about one NVLink of a GPU.
struct NvlinkRecord {
  unsigned link = 0;
  Fact<bool> p2p_supported;      // NVML_NVLINK_CAP_P2P_SUPPORTED (NCCL skips links without it)
  Fact<bool> active;             // link state (NCCL: field NVLINK_GET_STATE on sm >= 90)
  Fact<unsigned> version;
  Fact<unsigned> speed_mbyte_s;  // NVML "MBps" = 1e6 bytes/s per direction: 26562 on H100/H200
  Fact<std::string> remote_bus_id;  // NVML's remote PCI bus id, lower-cased as NCCL writes it
  Fact<std::string> remote_type;    // "gpu", "nvswitch", "ibmnpu" (a POWER CPU), "unknown"
  Fact<unsigned long long> replay_errors, recovery_errors, crc_errors;
};

struct ProcessRecord {
  unsigned pid = 0;
  std::string name;  // empty when NVML cannot name it (another PID namespace)
  Fact<unsigned long long> used_memory_bytes;
};

// The GPU's registration with the NVLink fabric (nvmlDeviceGetGpuFabricInfo[V]): NVLS (NVLink SHARP) and
// multi-node NVLink need it completed (Fabric Manager on NVSwitch systems). nvidia-smi -q prints it as "Fabric".
struct NvmlFabricRecord {
  unsigned state = 0;        // 0 not supported, 1 not started, 2 in progress, 3 completed (nvmlGpuFabricState_t)
  int status = 0;            // nvmlReturn_t of the registration: meaningful once completed
  std::string status_text;   // NVML's words for `status` ("Success", "In use by another client")
  unsigned clique_id = 0;
  std::string cluster_uuid;  // 32 lower-case hex digits; all zero outside a multi-node NVLink cluster
  Fact<unsigned> health_mask;  // the versioned call only
};

// NVML's view of one GPU (one NVML index). Every query that NVML refuses becomes an unknown Fact.
struct NvmlGpuRecord {
  unsigned index = 0;
  std::string uuid;
  std::string name;
  std::string pci_bus_id;  // canonical "0000:00:06.0"
  Fact<int> sm;            // compute capability major*10 + minor
  Fact<unsigned long long> memory_bytes;
  Fact<bool> persistence_mode;
  Fact<bool> mig_enabled;
  Fact<bool> mig_pending;
  Fact<int> compute_mode;  // NVML_COMPUTEMODE_*: 0 default, 2 prohibited, 3 exclusive process
  Fact<unsigned> pcie_current_gen, pcie_max_gen, pcie_current_width, pcie_max_width;
  Fact<unsigned> sm_clock_mhz, sm_max_clock_mhz, mem_clock_mhz, mem_max_clock_mhz;
  Fact<unsigned> memory_bus_width_bits;  // nvmlDeviceGetMemoryBusWidth: 6144 on H200 (HBM3e)
  Fact<unsigned long long> clock_event_reasons;  // NVML clocks-event (throttle) reason bit mask
  Fact<bool> ecc_enabled;
  Fact<unsigned long long> ecc_volatile_corrected, ecc_volatile_uncorrected, ecc_aggregate_corrected,
      ecc_aggregate_uncorrected;
  Fact<std::vector<int>> cpu_affinity;
  Fact<int> gpu_numa_node;  // memory NUMA node of coherent GPUs (Grace); "N/A" in nvidia-smi otherwise
  Fact<unsigned> utilization_gpu_percent, utilization_memory_percent;
  Fact<std::vector<ProcessRecord>> processes;
  std::vector<NvlinkRecord> nvlinks;  // links 0..N-1 as far as NVML reports them
  std::string nvlink_reason;          // why `nvlinks` is empty, when it is
  Fact<unsigned> c2c_active_links;    // Grace Hopper C2C
  Fact<unsigned> c2c_max_bw_mbyte_s;
  Fact<NvmlFabricRecord> fabric;
};

// One ordered GPU pair (NVML indices): topology level and P2P status.
struct NvmlPairRecord {
  unsigned a = 0;
  unsigned b = 0;
  Fact<int> topology_level;  // nvmlGpuTopologyLevel_t: 0 internal, 10 single, 20 multiple, 30 host bridge, 40 node, 50 system
  // nvidia-smi topo -p2p spellings: "OK", "CNS", "GNS", "TNS", "NS", "U" (plus "DRK", disabled by regkey)
  Fact<std::string> p2p_read, p2p_write, p2p_nvlink, p2p_atomics;
};

struct NvmlSnapshot {
  bool available = false;
  std::string reason;   // why NVML is unavailable (library missing, no driver, init failed)
  std::string library;  // what was opened
  Fact<std::string> driver_version;
  Fact<int> cuda_driver_version;  // 13000 for CUDA 13.0
  std::vector<NvmlGpuRecord> gpus;
  std::vector<NvmlPairRecord> pairs;
  std::vector<std::string> errors;  // a GPU NVML lists but cannot open, one line each
};

// Source of NVML facts: the dlopen'd library on a live machine, recorded facts in tests.
class NvmlSource {
 public:
  virtual ~NvmlSource() = default;
  // Reads everything discovery needs in one pass (bounded NVML calls per GPU and per pair). Never throws
  // for a missing library or driver: the snapshot says unavailable, with the reason.
  virtual NvmlSnapshot read() = 0;
};

// NVML from libnvidia-ml.so.1 (or `library_path` when not empty, e.g. LINKSCOPE_NVML_LIBRARY).
std::unique_ptr<NvmlSource> make_nvml_library_source(const std::string& library_path);

// Names for clocks-event reason bits ("gpu_idle", "sw_power_cap", ...), in bit order.
std::vector<std::string> clock_event_reason_names(unsigned long long mask);

}  // namespace linkscope::discover
