#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/diagnosis.hpp"
#include "model/host_evidence.hpp"
#include "model/json_read.hpp"
#include "model/known.hpp"

// The Run's `system` section: the hardware facts of the machine (docs/run-schema.md, "### system"). Live discovery
// (src/discover) builds these objects; reading a saved run builds the same objects. Every fact that may be unknown
// is a Known<T> (null with "<field>_reason" in the document).
namespace linkscope::model {

struct NvlinkErrors {
  Known<std::int64_t> replay, recovery, crc_flit;
};

struct Nvlink {
  int link = 0;
  Known<bool> active;
  Known<int> version;
  Known<double> speed_gbps;        // GB/s per direction (NVML MBps / 1000), as `nvidia-smi nvlink -s`
  Known<std::string> remote_bdf;
  Known<std::string> remote_type;  // "nvswitch", "gpu", "ibmnpu", "unknown"
  Known<bool> p2p_supported;
  NvlinkErrors errors;
  nlohmann::json extra;
};

struct Pcie {
  Known<int> current_gen, max_gen, current_width, max_width;  // NVML
  std::optional<std::string> current_speed, max_speed;        // sysfs ("32.0 GT/s PCIe")
  std::optional<int> sysfs_current_width, sysfs_max_width;
  std::optional<bool> width_degraded;  // trained width below the maximum (the generation drops at idle: normal)
  nlohmann::json extra;
};

struct Clocks {
  Known<int> sm_mhz, sm_max_mhz, mem_mhz, mem_max_mhz;
};

struct Utilization {
  Known<int> gpu_percent, memory_percent;
};

struct Ecc {
  Known<bool> enabled;
  Known<std::int64_t> volatile_corrected, volatile_uncorrected, aggregate_corrected, aggregate_uncorrected;
};

struct C2c {
  int active_links = 0;
  Known<double> max_bw_gbps;
};

// The GPU's registration with the NVLink fabric (NVML): NVLS and multi-node NVLink need it "completed" with a
// successful status (Fabric Manager on NVSwitch machines).
struct GpuFabric {
  std::string state;   // "not_supported", "not_started", "in_progress", "completed" (or "state N")
  std::string status;  // NVML's words for the registration's result ("Success")
  bool status_ok = true;
  std::int64_t clique_id = 0;
  std::string cluster_uuid;  // 32 hex digits; zeros outside a multi-node NVLink cluster
  Known<std::int64_t> health_mask;
};

struct GpuProcess {
  std::int64_t pid = 0;
  std::string name;  // empty when NVML cannot name it (another PID namespace)
  Known<std::int64_t> used_memory_bytes;
};

// One GPU with everything known about it. `nvml` facts are absent (with `nvml_reason`) when NVML is unusable.
struct Gpu {
  std::optional<int> cuda_ordinal;  // null when CUDA does not show it
  std::optional<int> nvml_index;
  std::string uuid, pci_bdf, name;
  Known<int> sm;  // compute capability major*10 + minor
  Known<std::int64_t> memory_bytes;
  Known<std::int64_t> l2_cache_bytes;  // CUDA's l2CacheSize; absent in documents saved before it was read
  Known<int> numa_node;
  Known<std::string> cpu_affinity;  // "0-31"
  std::vector<int> numa_affinity;
  Pcie pcie;
  Known<bool> gpu_direct_rdma;
  Known<bool> dma_buf;    // CUDA: dma-buf registration possible (GPUDirect RDMA without a peer-memory module)
  Known<bool> multicast;  // CUDA: NVLink multicast (NVLS) supported by the device and driver
  std::string nvml_reason;  // non-empty: no NVML facts below
  Known<std::string> mig_mode;  // "enabled", "disabled"
  Known<bool> persistence_mode;
  Known<std::string> compute_mode;
  Clocks clocks;
  Known<int> memory_bus_width_bits;  // NVML's; with clocks.mem_max_mhz the memory's peak rate (model/memory_rate)
  Known<std::vector<std::string>> throttle_reasons;  // NVML clocks-event reasons ("gpu_idle", "sw_power_cap")
  Utilization utilization;
  Ecc ecc;
  Known<int> gpu_numa_id;
  // Known when NVML was asked (an empty list then comes with NVML's reason); unknown without NVML.
  Known<std::vector<Nvlink>> nvlinks;
  std::optional<C2c> c2c;
  Known<GpuFabric> fabric;  // absent in documents saved before it was read
  Known<std::vector<GpuProcess>> processes;
  nlohmann::json extra;

  // "GPU0" (CUDA ordinal), "NVML GPU1" when hidden from CUDA, "GPU 0000:..." otherwise.
  std::string label() const;
  // The NVLinks as listed (none when unknown).
  const std::vector<Nvlink>& nvlink_list() const;
  int active_nvlinks() const;
  bool links_to_nvswitch() const;
  // Identical peers: same product name and SM version.
  bool same_kind(const Gpu& other) const { return name == other.name && sm == other.sm; }
};

struct NvmlP2p {
  Known<std::string> read, write, nvlink, atomics;  // nvidia-smi topo -p2p letters: OK, CNS, GNS, TNS, NS, U, DRK
};

// One ordered GPU pair. `a`/`b` are CUDA ordinals (absent for pairs with a GPU hidden from CUDA).
struct GpuPair {
  std::optional<int> a, b;
  std::optional<int> a_nvml_index, b_nvml_index;
  Known<std::string> relation;  // as `nvidia-smi topo -m`: "NV18", "PIX", "PXB", "PHB", "NODE", "SYS"
  int nvlink_count = 0;         // direct links a->b, or a's links into the NVSwitch fabric
  bool via_nvswitch = false;
  std::optional<NvmlP2p> nvml_p2p;  // absent with nvml_p2p_reason
  std::string nvml_p2p_reason;
  Known<int> topology_level;
  Known<bool> cuda_peer_access;
  Known<int> cuda_performance_rank;
  Known<bool> cuda_native_atomics;
  nlohmann::json extra;
};

struct NumaNode {
  int id = 0;
  std::string cpus;
  std::vector<int> distances;
  std::optional<std::int64_t> memory_bytes;
};

struct NicPort {
  int port = 0;
  std::string state;  // "ACTIVE", "DOWN", ...
  std::optional<double> rate_gbps;  // Gbit/s, as the kernel reports (the one "gbps" that is bits)
  std::string link_layer;
};

// An RDMA device (kind "infiniband") or a network interface.
struct Nic {
  std::string name, kind, bus;
  std::optional<std::string> pci_bdf;
  std::optional<int> numa_node;
  std::optional<std::string> device_path;
  // RDMA devices
  std::optional<std::string> node_guid;
  std::vector<NicPort> ports;
  std::vector<std::string> net_devices;
  // interfaces
  std::optional<std::string> operstate;
  std::optional<std::int64_t> speed_mbps;  // Mbit/s
  bool is_virtual = false;
  std::optional<bool> has_address;
  nlohmann::json extra;
};

struct PciDisplayDevice {
  std::string pci_bdf;
  std::optional<std::string> class_id, vendor, device;
  std::optional<int> numa_node;
  std::optional<std::string> current_link_speed, max_link_speed;
  std::optional<int> current_width, max_width;
  std::optional<std::string> local_cpulist;  // sysfs: the CPUs close to the device ("0-15")
};

// `nvidia-smi topo -m` as discovery computes it from NVML and the PCI tree: the GPUs by NVML index (without a
// driver, the display devices sysfs lists), then the RDMA NICs. What the live `topo` text prints as its matrix.
struct SmiMatrix {
  std::vector<std::string> labels;              // the GPU rows ("GPU0" ...), then the NIC rows ("NIC0" ...)
  std::vector<std::vector<std::string>> cells;  // cells[row][column]: "X" on the diagonal, "NV18", "PIX", "SYS", "?"
  // One per GPU row, in row order ("N/A" when unknown); their count says how many rows are GPUs.
  std::vector<std::string> cpu_affinity, numa_affinity, gpu_numa_id;
  std::vector<std::string> nic_legend;          // "NIC0: mlx5_0"
};

struct HiddenGpu {
  std::optional<int> nvml_index;
  std::string uuid, pci_bdf, reason;
  std::optional<Gpu> gpu;  // its facts (cuda_ordinal null)
};

struct Visibility {
  std::optional<int> nvml_gpu_count, cuda_device_count;
  std::optional<std::string> cuda_visible_devices, cuda_device_order;
  std::vector<HiddenGpu> hidden;
  std::vector<GpuPair> hidden_pairs;
  std::vector<std::string> notes;
};

struct Driver {
  bool reported = false;  // the run recorded the driver's state (a partial or hand-made document may not)
  bool available = false;
  std::string library;
  Known<std::string> version;
  Known<int> cuda_driver_version;  // 13000 for CUDA 13.0
  std::string reason;              // why it is unavailable
};

struct Cuda {
  bool available = false;
  std::optional<int> runtime_version, driver_version;
  int device_count = 0;
  std::string reason;
};

struct Cpu {
  std::string arch;
  std::optional<std::string> vendor;
  std::optional<int> family_id, model_id;
  std::string model_name;
  int logical_cpus = 0;
};

// One line of a path comparison (linkscope's model vs NCCL's dump or log).
struct PathDifference {
  std::string node, target;
  std::optional<std::string> linkscope, nccl;
  bool expected = false;
  std::string explanation;
};

struct PathComparison {
  bool identical = false, equivalent = false;
  int compared_lines = 0;
  std::vector<PathDifference> differences;
};

// What NCCL itself built in a child process (`linkscope topo` live).
struct NcclTopologyProbe {
  std::string status;  // ok, failed, timeout, skipped
  std::optional<std::string> reason;
  std::optional<std::string> nccl_version;
  std::optional<int> device_count;
  std::optional<double> init_seconds, wall_seconds;
  std::vector<std::string> child_env;
  std::optional<std::string> dump_xml;
  std::vector<std::string> path_lines;
  std::optional<PathComparison> versus_nccl_log, versus_nccl_dump;
  nlohmann::json extra;
};

struct SynthesizedTopology {
  int gpu_count = 0;
  std::string net_transport;
  std::vector<std::string> notes;
};

// One GPU's relation to one NIC (nvidia-smi words) with NCCL's NET and GPUDirect RDMA decision.
struct GpuNicRelation {
  std::string name, relation;
  bool nccl_net = false;
  std::optional<std::string> gdr_read, gdr_write, gdr_reason;
};

struct GpuNics {
  std::optional<int> cuda_ordinal, nvml_index;
  std::string pci_bdf;
  std::optional<std::string> closest, closest_relation, closest_reason;
  std::vector<GpuNicRelation> nics;
};

struct System;

// Under MPI: one host of the job (src/cluster), with its traits and, for doctor, its own diagnosis.
struct Host {
  std::string name, hostname, identity_source;
  std::vector<int> ranks;
  int leader = 0;
  std::optional<std::string> nccl_version;
  std::string nccl_version_reason;
  std::optional<std::string> error;
  int group = 0;
  std::map<std::string, std::string> traits;
  std::vector<std::string> differences;
  std::shared_ptr<const System> system;  // that host's facts as its leader sent them (none: discovery failed)
  std::optional<std::vector<Finding>> findings;  // doctor: that host's findings (none: it could not be examined)
  std::map<std::string, std::string> hypotheses;  // doctor: id -> verdict
  std::vector<std::string> run_errors;
  std::optional<std::string> run_file;
  nlohmann::json extra;
};

struct HostDifferenceOther {
  std::string host, value;
};

struct HostDifference {
  std::string trait, label, common_value;
  std::vector<std::string> common_hosts;
  std::vector<HostDifferenceOther> others;
};

struct DiscoverySeconds {
  double sysfs = 0, nvml = 0, cuda = 0, synthesis = 0, nccl_wait = 0, total = 0;
};

struct System {
  // False for a run without hardware facts (a topology file alone, a document without `system`).
  bool present = false;
  Driver driver;
  Cuda cuda;
  std::string sysfs_root;
  std::optional<std::string> capture;  // the capture file the facts were read from (doctor/topo --capture)
  // NVIDIA daemons seen running (/proc/PID/comm: "nv-fabricmanage", "nvidia-imex"); absent in older documents.
  std::optional<std::vector<std::string>> nvidia_services;
  std::optional<Cpu> cpu;
  std::string cpu_reason;
  std::vector<Gpu> gpus;       // the GPUs CUDA shows (cuda_ordinal always set)
  std::vector<GpuPair> pairs;  // every ordered pair of those
  std::vector<NumaNode> numa_nodes;
  std::vector<Nic> nics;
  std::vector<PciDisplayDevice> pci_display_devices;
  std::optional<SmiMatrix> smi_matrix;  // absent when discovery saw no GPU (or the run predates it)
  Visibility visibility;
  std::optional<SynthesizedTopology> synthesized_topology;
  std::vector<GpuNics> gpu_nics;
  std::optional<HostEvidence> host_evidence;  // absent in runs saved before it was read, and for other hosts' facts
  std::optional<NcclTopologyProbe> nccl_topology;
  std::optional<DiscoverySeconds> discovery_seconds;
  std::vector<std::string> errors, warnings;
  // Under MPI (src/cluster)
  std::vector<Host> hosts;
  std::vector<std::vector<std::string>> host_groups;
  std::vector<HostDifference> host_differences;
  nlohmann::json extra;

  const Gpu* gpu_by_cuda_ordinal(int ordinal) const;
  // Either order of a pair CUDA shows.
  const GpuPair* pair(int a, int b) const;
};

nlohmann::json to_json(const System& system);
System system_from_json(const JsonReader& reader);
nlohmann::json to_json(const Gpu& gpu);
Gpu gpu_from_json(const JsonReader& reader);

}  // namespace linkscope::model
