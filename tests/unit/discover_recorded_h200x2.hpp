#pragma once
// Recorded NVML and CUDA facts of the h200x2 machine, read from its captures in tests/fixtures/h200x2:
// nvidia-smi -q -x (GPUs, PCIe, clocks, ECC), nvidia-smi nvlink -s/-c/-e (link speed, P2P capability,
// error counters), nvidia-smi topo -p2p r and topo -m (P2P read status, CPU affinity). Facts the captures
// do not hold are marked unknown ("not captured") unless noted: the NVLink remote end is taken from NCCL's
// dump of the same machine (target fffffff:ff:ff.0, an NVSwitch invisible in the VM), NVLink version 4 and
// sm 90 from the product (H200, Hopper), GPUDirect RDMA support from the dump's gdr="1".
#include <pugixml.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "discover/cuda_source.hpp"
#include "discover/nvml_source.hpp"
#include "discover/pci_tree.hpp"
#include "support/run_command.hpp"

namespace linkscope::test {

using discover::CudaDeviceRecord;
using discover::CudaPeerRecord;
using discover::CudaSnapshot;
using discover::Fact;
using discover::NvlinkRecord;
using discover::NvmlGpuRecord;
using discover::NvmlPairRecord;
using discover::NvmlSnapshot;

inline unsigned leading_number(const std::string& text) { return static_cast<unsigned>(std::strtoul(text.c_str(), nullptr, 10)); }

// Per GPU (by "GPU n:" header) and link: the text after "Link n" in an `nvidia-smi nvlink` capture.
inline std::map<unsigned, std::map<unsigned, std::vector<std::string>>> nvlink_capture(const std::string& file) {
  std::map<unsigned, std::map<unsigned, std::vector<std::string>>> result;
  std::istringstream lines(read_text(fixture(file)));
  std::string line;
  unsigned gpu = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("GPU ", 0) == 0) {
      gpu = leading_number(line.substr(4));
      continue;
    }
    const auto at = line.find("Link ");
    if (at == std::string::npos) continue;
    const unsigned link = leading_number(line.substr(at + 5));
    const auto rest = line.find_first_of(",:", at);
    if (rest != std::string::npos) result[gpu][link].push_back(line.substr(rest + 1));
  }
  return result;
}

inline Fact<unsigned long long> counter(const std::vector<std::string>& lines, const std::string& name) {
  for (const auto& line : lines) {
    const auto at = line.find(name + ": ");
    if (at != std::string::npos) return Fact<unsigned long long>::known(std::strtoull(line.c_str() + at + name.size() + 2, nullptr, 10));
  }
  return Fact<unsigned long long>::unknown("not captured");
}

inline NvmlSnapshot h200x2_nvml_snapshot() {
  NvmlSnapshot snapshot;
  pugi::xml_document doc;
  doc.load_file(fixture("h200x2/nvidia-smi-q.xml").c_str());
  const pugi::xml_node log = doc.child("nvidia_smi_log");
  snapshot.available = true;
  snapshot.library = "recorded: h200x2/nvidia-smi-q.xml";
  snapshot.driver_version = Fact<std::string>::known(log.child_value("driver_version"));
  snapshot.cuda_driver_version = Fact<int>::known(static_cast<int>(std::strtod(log.child_value("cuda_version"), nullptr) * 1000 + 0.5));
  const auto speeds = nvlink_capture("h200x2/nvidia-smi-nvlink-s.txt");
  const auto caps = nvlink_capture("h200x2/nvidia-smi-nvlink-c.txt");
  const auto errors = nvlink_capture("h200x2/nvidia-smi-nvlink-e.txt");
  unsigned index = 0;
  for (const pugi::xml_node gpu_node : log.children("gpu")) {
    NvmlGpuRecord gpu;
    gpu.index = index;
    gpu.uuid = gpu_node.child_value("uuid");
    gpu.name = gpu_node.child_value("product_name");
    gpu.pci_bus_id = discover::canonical_bdf(gpu_node.child("pci").child_value("pci_bus_id")).value_or("");
    gpu.sm = Fact<int>::known(90);
    gpu.memory_bytes = Fact<unsigned long long>::known(leading_number(gpu_node.child("fb_memory_usage").child_value("total")) * 1048576ULL);
    gpu.persistence_mode = Fact<bool>::known(std::string(gpu_node.child_value("persistence_mode")) == "Enabled");
    gpu.mig_enabled = Fact<bool>::known(std::string(gpu_node.child("mig_mode").child_value("current_mig")) == "Enabled");
    gpu.mig_pending = Fact<bool>::known(std::string(gpu_node.child("mig_mode").child_value("pending_mig")) == "Enabled");
    gpu.compute_mode = Fact<int>::known(std::string(gpu_node.child_value("compute_mode")) == "Default" ? 0 : -1);
    const pugi::xml_node link = gpu_node.child("pci").child("pci_gpu_link_info");
    gpu.pcie_current_gen = Fact<unsigned>::known(leading_number(link.child("pcie_gen").child_value("current_link_gen")));
    gpu.pcie_max_gen = Fact<unsigned>::known(leading_number(link.child("pcie_gen").child_value("max_link_gen")));
    gpu.pcie_current_width = Fact<unsigned>::known(leading_number(link.child("link_widths").child_value("current_link_width")));
    gpu.pcie_max_width = Fact<unsigned>::known(leading_number(link.child("link_widths").child_value("max_link_width")));
    gpu.sm_clock_mhz = Fact<unsigned>::known(leading_number(gpu_node.child("clocks").child_value("sm_clock")));
    gpu.sm_max_clock_mhz = Fact<unsigned>::known(leading_number(gpu_node.child("max_clocks").child_value("sm_clock")));
    gpu.mem_clock_mhz = Fact<unsigned>::known(leading_number(gpu_node.child("clocks").child_value("mem_clock")));
    gpu.mem_max_clock_mhz = Fact<unsigned>::known(leading_number(gpu_node.child("max_clocks").child_value("mem_clock")));
    unsigned long long reasons = 0;
    const char* reason_order[] = {"gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "sync_boost",
                                  "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown",
                                  "display_clocks_setting"};
    for (unsigned bit = 0; bit < 9; ++bit) {
      const std::string key = std::string("clocks_event_reason_") + reason_order[bit];
      if (std::string(gpu_node.child("clocks_event_reasons").child_value(key.c_str())) == "Active") reasons |= 1ULL << bit;
    }
    gpu.clock_event_reasons = Fact<unsigned long long>::known(reasons);
    gpu.ecc_enabled = Fact<bool>::known(std::string(gpu_node.child("ecc_mode").child_value("current_ecc")) == "Enabled");
    const auto ecc = [&](const char* scope, bool corrected) {
      const pugi::xml_node node = gpu_node.child("ecc_errors").child(scope);
      const unsigned long long total =
          corrected ? leading_number(node.child_value("sram_correctable")) + leading_number(node.child_value("dram_correctable"))
                    : leading_number(node.child_value("sram_uncorrectable_parity")) +
                          leading_number(node.child_value("sram_uncorrectable_secded")) +
                          leading_number(node.child_value("dram_uncorrectable"));
      return Fact<unsigned long long>::known(total);
    };
    gpu.ecc_volatile_corrected = ecc("volatile", true);
    gpu.ecc_volatile_uncorrected = ecc("volatile", false);
    gpu.ecc_aggregate_corrected = ecc("aggregate", true);
    gpu.ecc_aggregate_uncorrected = ecc("aggregate", false);
    std::vector<int> cpus;
    for (int cpu = 0; cpu < 32; ++cpu) cpus.push_back(cpu);  // topo -m: CPU Affinity 0-31
    gpu.cpu_affinity = Fact<std::vector<int>>::known(cpus);
    gpu.gpu_numa_node = Fact<int>::unknown("nvmlDeviceGetNumaNodeId: Not Supported");  // topo -m: GPU NUMA ID N/A
    gpu.utilization_gpu_percent = Fact<unsigned>::known(leading_number(gpu_node.child("utilization").child_value("gpu_util")));
    gpu.utilization_memory_percent = Fact<unsigned>::known(leading_number(gpu_node.child("utilization").child_value("memory_util")));
    gpu.processes = Fact<std::vector<discover::ProcessRecord>>::known({});  // <processes> is empty
    for (const auto& [link_number, lines] : caps.at(index)) {
      NvlinkRecord record;
      record.link = link_number;
      record.p2p_supported = Fact<bool>::known(lines.front().find("P2P is supported: true") != std::string::npos);
      record.active = Fact<bool>::known(true);  // every link of both GPUs is listed up (nvlink -s, -e)
      record.version = Fact<unsigned>::known(4);
      const auto speed = speeds.find(index);
      if (speed != speeds.end() && speed->second.count(link_number)) {
        record.speed_mbyte_s = Fact<unsigned>::known(
            static_cast<unsigned>(std::strtod(speed->second.at(link_number).front().c_str(), nullptr) * 1000 + 0.5));
      } else {
        record.speed_mbyte_s = Fact<unsigned>::unknown("not captured");
      }
      record.remote_bus_id = Fact<std::string>::known("fffffff:ff:ff.0");
      record.remote_type = Fact<std::string>::known("nvswitch");
      const auto& link_errors = errors.at(index).at(link_number);
      record.replay_errors = counter(link_errors, "Replay Errors");
      record.recovery_errors = counter(link_errors, "Recovery Errors");
      record.crc_errors = counter(link_errors, "CRC Errors");
      gpu.nvlinks.push_back(record);
    }
    gpu.c2c_active_links = Fact<unsigned>::known(0);  // <c2c_mode>Disabled</c2c_mode>
    snapshot.gpus.push_back(gpu);
    ++index;
  }
  const std::string p2p_read = read_text(fixture("h200x2/nvidia-smi-topo-p2p-r.txt"));
  for (unsigned a = 0; a < snapshot.gpus.size(); ++a) {
    for (unsigned b = 0; b < snapshot.gpus.size(); ++b) {
      if (a == b) continue;
      NvmlPairRecord pair;
      pair.a = a;
      pair.b = b;
      pair.topology_level = Fact<int>::unknown("not captured");
      pair.p2p_read = Fact<std::string>::known(p2p_read.find("GPU0\tX\tOK") != std::string::npos ? "OK" : "?");
      pair.p2p_write = Fact<std::string>::unknown("not captured");
      pair.p2p_nvlink = Fact<std::string>::unknown("not captured");
      pair.p2p_atomics = Fact<std::string>::unknown("not captured");
      snapshot.pairs.push_back(pair);
    }
  }
  return snapshot;
}

// The CUDA runtime's view of the same machine with `visible` NVML GPUs (by NVML index, in CUDA order).
inline CudaSnapshot h200x2_cuda_snapshot(const NvmlSnapshot& nvml, const std::vector<unsigned>& visible) {
  CudaSnapshot snapshot;
  snapshot.available = !visible.empty();
  snapshot.reason = visible.empty() ? "cudaGetDeviceCount: no CUDA-capable device is detected" : "";
  snapshot.runtime_version = Fact<int>::known(13000);
  snapshot.driver_version = Fact<int>::known(13000);
  for (std::size_t ordinal = 0; ordinal < visible.size(); ++ordinal) {
    const NvmlGpuRecord& gpu = nvml.gpus.at(visible[ordinal]);
    CudaDeviceRecord device;
    device.ordinal = static_cast<int>(ordinal);
    device.name = gpu.name;
    device.uuid = gpu.uuid;
    device.pci_bus_id = gpu.pci_bus_id;
    device.sm = 90;
    device.memory_bytes = *gpu.memory_bytes;
    device.gpu_direct_rdma = Fact<bool>::known(true);
    snapshot.devices.push_back(device);
  }
  for (const auto& a : snapshot.devices) {
    for (const auto& b : snapshot.devices) {
      if (a.ordinal == b.ordinal) continue;
      CudaPeerRecord peer;
      peer.a = a.ordinal;
      peer.b = b.ordinal;
      peer.can_access_peer = Fact<bool>::known(true);  // NCCL's log: "via P2P/direct pointer" both ways
      peer.performance_rank = Fact<int>::unknown("not captured");
      peer.access_supported = Fact<bool>::unknown("not captured");
      peer.native_atomics = Fact<bool>::unknown("not captured");
      snapshot.peers.push_back(peer);
    }
  }
  return snapshot;
}

}  // namespace linkscope::test
