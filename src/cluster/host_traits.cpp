#include "cluster/host_traits.hpp"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "core/cuda_version.hpp"
#include "core/text.hpp"

namespace linkscope::cluster {

namespace {

std::string unknown(const std::string& reason) { return reason.empty() ? "unknown" : "unknown (" + reason + ")"; }

// 13000 -> "13.0"
std::string version_text(const std::optional<int>& version) {
  if (!version) return "unknown";
  return cuda_version_text(*version);
}

// Every GPU the host has, visible to CUDA or not, in NVML index order when known.
std::vector<const model::Gpu*> all_gpus(const model::System& system) {
  std::vector<const model::Gpu*> gpus;
  for (const auto& gpu : system.gpus) gpus.push_back(&gpu);
  for (const auto& hidden : system.visibility.hidden) {
    if (hidden.gpu) gpus.push_back(&*hidden.gpu);
  }
  std::stable_sort(gpus.begin(), gpus.end(), [](const model::Gpu* a, const model::Gpu* b) {
    return a->nvml_index && b->nvml_index && *a->nvml_index < *b->nvml_index;
  });
  return gpus;
}

std::string gpu_label(const model::Gpu& gpu, std::size_t position) {
  return fmt::format("GPU{}", gpu.nvml_index ? *gpu.nvml_index : static_cast<int>(position));
}

// "18 per GPU" when every GPU has the same value, else "GPU0 18, GPU1 12".
std::string per_gpu(const std::vector<const model::Gpu*>& gpus,
                    const std::function<std::string(const model::Gpu&)>& value_of) {
  if (gpus.empty()) return "no GPU";
  std::vector<std::string> values;
  for (const model::Gpu* gpu : gpus) values.push_back(value_of(*gpu));
  if (std::all_of(values.begin(), values.end(), [&](const std::string& v) { return v == values.front(); })) {
    return values.front() + " per GPU";
  }
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < gpus.size(); ++i) parts.push_back(gpu_label(*gpus[i], i) + " " + values[i]);
  return join(parts, ", ");
}

std::string active_nvlinks(const model::Gpu& gpu) {
  if (gpu.nvlink_list().empty()) return "0 NVLinks";
  return fmt::format("{} NVLinks active", gpu.active_nvlinks());
}

std::string pcie_width(const model::Gpu& gpu) {
  const auto& current = gpu.pcie.current_width;
  const auto& maximum = gpu.pcie.max_width;
  if (!current) return "PCIe width unknown";
  std::string text = fmt::format("x{}", *current);
  if (maximum && *maximum != *current) text += fmt::format(" (max x{})", *maximum);
  return text;
}

bool rdma_device(const model::Nic& nic) { return nic.kind == "infiniband"; }
bool counted_interface(const model::Nic& nic) { return !rdma_device(nic) && !nic.is_virtual; }

std::string nic_count(const model::System& system) {
  int rdma = 0, interfaces = 0;
  for (const auto& nic : system.nics) {
    if (rdma_device(nic)) {
      ++rdma;
    } else if (counted_interface(nic)) {
      ++interfaces;
    }
  }
  return fmt::format("{} RDMA device(s), {} network interface(s)", rdma, interfaces);
}

std::string nic_links(const model::System& system) {
  std::vector<std::string> parts;
  for (const auto& nic : system.nics) {
    if (rdma_device(nic)) {
      for (const auto& port : nic.ports) {
        std::string text = fmt::format("{}:{} {}", nic.name, port.port, port.state);
        if (port.rate_gbps) text += fmt::format(" {:g} Gb/s", *port.rate_gbps);
        parts.push_back(text);
      }
    } else if (counted_interface(nic)) {
      std::string text = nic.name + " " + nic.operstate.value_or("?");
      if (nic.speed_mbps) text += fmt::format(" {:g} Gb/s", static_cast<double>(*nic.speed_mbps) / 1000);
      parts.push_back(text);
    }
  }
  return parts.empty() ? "none" : join(parts, ", ");
}

std::string gpu_models(const std::vector<const model::Gpu*>& gpus) {
  std::vector<std::pair<std::string, int>> counts;
  for (const model::Gpu* gpu : gpus) {
    auto found = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == gpu->name; });
    if (found == counts.end()) {
      counts.push_back({gpu->name, 1});
    } else {
      ++found->second;
    }
  }
  std::vector<std::string> parts;
  for (const auto& [name, count] : counts) parts.push_back(fmt::format("{} x {}", count, name));
  return parts.empty() ? "none" : join(parts, ", ");
}

std::string closest_nics(const model::System& system) {
  // Live discovery records each GPU's NICs with the synthesized topology.
  if (system.gpu_nics.empty() && !system.synthesized_topology) return "unknown (not recorded)";
  std::vector<std::string> parts;
  for (const auto& gpu : system.gpu_nics) {
    const std::string label = gpu.nvml_index ? fmt::format("GPU{}", *gpu.nvml_index) : "GPU?";
    parts.push_back(gpu.closest ? fmt::format("{} {} {}", label, *gpu.closest, gpu.closest_relation.value_or("?"))
                                : label + " none");
  }
  return parts.empty() ? "no GPU" : join(parts, ", ");
}

std::string driver_text(const model::Driver& driver) {
  if (!driver.available) return "unavailable" + (driver.reason.empty() ? "" : " (" + driver.reason + ")");
  return driver.version ? *driver.version : unknown(driver.version.reason);
}

std::string nccl_network(const model::System& system) {
  if (!system.synthesized_topology) return "unknown (not modelled)";
  const std::string& net = system.synthesized_topology->net_transport;
  return net.empty() ? "none" : net;
}

}  // namespace

std::vector<HostTrait> host_traits(const HostReport& host) {
  static const model::System no_facts;
  const std::string missing = host.error.empty() ? "unknown (no facts)" : "unknown (" + host.error + ")";
  const model::System& system = host.system ? *host.system : no_facts;
  const auto gpus = all_gpus(system);

  std::vector<HostTrait> traits;
  const auto add = [&](const char* key, const char* label, std::string value) {
    traits.push_back({key, label, host.system ? std::move(value) : missing});
  };
  add("driver", "NVIDIA driver", driver_text(system.driver));
  add("cuda_driver", "CUDA driver API", version_text(system.driver.cuda_driver_version));
  add("cuda_runtime", "CUDA runtime", version_text(system.cuda.runtime_version));
  traits.push_back({"nccl", "NCCL library",
                    host.nccl_version ? *host.nccl_version : "unknown (" + host.nccl_version_reason + ")"});
  const auto& nvml_count = system.visibility.nvml_gpu_count;
  add("gpu_count", "GPU count",
      system.driver.available && nvml_count
          ? std::to_string(*nvml_count)
          : fmt::format("{} in sysfs (no driver)", system.pci_display_devices.size()));
  add("cuda_gpu_count", "GPUs visible to CUDA", std::to_string(system.cuda.device_count));
  add("gpu_models", "GPU models", gpu_models(gpus));
  add("nvlinks", "NVLinks", per_gpu(gpus, active_nvlinks));
  add("pcie_width", "PCIe width", per_gpu(gpus, pcie_width));
  add("nic_count", "NIC count", nic_count(system));
  add("nic_links", "NIC link states", nic_links(system));
  add("nccl_net", "NCCL network", nccl_network(system));
  add("gpu_nics", "closest NIC per GPU", closest_nics(system));
  add("cpu", "CPU",
      system.cpu ? fmt::format("{} ({} logical CPUs)", system.cpu->model_name, system.cpu->logical_cpus) : "unknown");
  return traits;
}

}  // namespace linkscope::cluster
