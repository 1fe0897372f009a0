#include "discover/visibility.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "core/text.hpp"

namespace linkscope::discover {

namespace {

bool is_index(const std::string& entry) {
  return !entry.empty() && entry.size() < 6 &&
         std::all_of(entry.begin(), entry.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}


// NVML indices in the order CUDA enumerates devices.
std::vector<unsigned> enumeration_order(const std::optional<std::string>& order, const std::vector<NvmlGpuRecord>& gpus,
                                        std::vector<std::string>& notes) {
  std::vector<const NvmlGpuRecord*> sorted;
  for (const auto& gpu : gpus) sorted.push_back(&gpu);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const NvmlGpuRecord* a, const NvmlGpuRecord* b) { return a->pci_bus_id < b->pci_bus_id; });
  const bool pci_order = order && *order == "PCI_BUS_ID";
  if (!pci_order) {
    // FASTEST_FIRST (the default) puts faster devices first; identical devices keep PCI bus order.
    const bool identical = std::all_of(gpus.begin(), gpus.end(), [&](const NvmlGpuRecord& g) {
      return g.name == gpus.front().name && g.sm.value_or(0) == gpus.front().sm.value_or(0);
    });
    if (!identical) {
      std::stable_sort(sorted.begin(), sorted.end(), [](const NvmlGpuRecord* a, const NvmlGpuRecord* b) {
        return a->sm.value_or(0) > b->sm.value_or(0);
      });
      notes.push_back(
          "CUDA_DEVICE_ORDER is FASTEST_FIRST and the GPUs differ: numeric CUDA_VISIBLE_DEVICES entries were "
          "matched assuming higher compute capability first; set CUDA_DEVICE_ORDER=PCI_BUS_ID to remove the doubt");
    }
  }
  std::vector<unsigned> indices;
  for (const auto* gpu : sorted) indices.push_back(gpu->index);
  return indices;
}

}  // namespace

VisibleSelection select_visible_devices(const std::optional<std::string>& cuda_visible_devices,
                                        const std::optional<std::string>& cuda_device_order,
                                        const std::vector<NvmlGpuRecord>& gpus) {
  VisibleSelection selection;
  const std::vector<unsigned> order = enumeration_order(cuda_device_order, gpus, selection.notes);
  if (!cuda_visible_devices) {
    selection.nvml_indices = order;
    selection.notes.clear();  // the order matters only for numeric entries
    return selection;
  }
  VisibleDevicesSpec& spec = selection.spec;
  spec.set = true;
  spec.text = *cuda_visible_devices;
  std::set<unsigned> chosen;
  for (const auto& entry : split_list(spec.text, ',')) {
    std::optional<unsigned> index;
    std::string problem;
    if (is_index(entry)) {
      const auto position = static_cast<std::size_t>(std::stoul(entry));
      if (position < order.size()) {
        index = order[position];
      } else {
        problem = fmt::format("index {} is beyond the {} GPU(s) present", entry, order.size());
      }
    } else if (entry.rfind("GPU-", 0) == 0 || entry.rfind("gpu-", 0) == 0) {
      const std::string prefix = lower(entry);
      std::vector<unsigned> matches;
      for (const auto& gpu : gpus) {
        if (lower(gpu.uuid).rfind(prefix, 0) == 0) matches.push_back(gpu.index);
      }
      if (matches.size() == 1) {
        index = matches.front();
      } else {
        problem = matches.empty() ? "no GPU has this UUID" : "this UUID prefix matches several GPUs";
      }
    } else if (entry.rfind("MIG-", 0) == 0) {
      selection.has_mig_entries = true;  // a MIG instance: its GPU is not usable as a whole
      spec.entries.push_back(entry);
      continue;
    } else {
      problem = entry.empty() ? "empty entry" : "not an index, GPU- or MIG- UUID";
    }
    if (index && !chosen.insert(*index).second) {
      index.reset();
      problem = "the GPU is already listed";
    }
    if (!index) {
      spec.stopped_at = entry;
      spec.stop_reason = problem;
      break;
    }
    spec.entries.push_back(entry);
    selection.nvml_indices.push_back(*index);
  }
  return selection;
}

DeviceMapping map_devices(const NvmlSnapshot& nvml, const CudaSnapshot& cuda, const Environment& env) {
  DeviceMapping mapping;
  mapping.cuda_ordinal_of_gpu.assign(nvml.gpus.size(), std::nullopt);
  mapping.selection = select_visible_devices(env.get("CUDA_VISIBLE_DEVICES"), env.get("CUDA_DEVICE_ORDER"), nvml.gpus);

  for (const auto& device : cuda.devices) {
    const auto it = std::find_if(nvml.gpus.begin(), nvml.gpus.end(),
                                 [&](const NvmlGpuRecord& gpu) { return gpu.pci_bus_id == device.pci_bus_id; });
    if (it == nvml.gpus.end()) {
      if (nvml.available) {
        mapping.notes.push_back(fmt::format("CUDA device {} ({}) has no NVML GPU at that bus id", device.ordinal,
                                            device.pci_bus_id));
      }
      continue;
    }
    auto& slot = mapping.cuda_ordinal_of_gpu[static_cast<std::size_t>(it - nvml.gpus.begin())];
    if (slot) {
      mapping.notes.push_back(fmt::format("CUDA devices {} and {} are both on NVML GPU {} ({}): MIG instances",
                                          *slot, device.ordinal, it->index, it->pci_bus_id));
      continue;
    }
    slot = device.ordinal;
  }

  const auto& selected = mapping.selection.nvml_indices;
  for (std::size_t i = 0; i < nvml.gpus.size(); ++i) {
    if (mapping.cuda_ordinal_of_gpu[i]) continue;
    const NvmlGpuRecord& gpu = nvml.gpus[i];
    HiddenGpu hidden{gpu.index, gpu.uuid, gpu.pci_bus_id, ""};
    const bool is_selected = std::find(selected.begin(), selected.end(), gpu.index) != selected.end();
    if (!cuda.available && cuda.devices.empty() && !mapping.selection.spec.set) {
      hidden.reason = fmt::format("the CUDA runtime has no device: {}", cuda.reason);
    } else if (mapping.selection.spec.set && !is_selected) {
      hidden.reason = fmt::format("CUDA_VISIBLE_DEVICES={} does not select it", mapping.selection.spec.text);
      if (!mapping.selection.spec.stopped_at.empty()) {
        hidden.reason += fmt::format(" (CUDA stops reading at '{}': {})", mapping.selection.spec.stopped_at,
                                     mapping.selection.spec.stop_reason);
      }
    } else if (gpu.mig_enabled.value_or(false)) {
      hidden.reason =
          "MIG mode is enabled: CUDA sees MIG instances, not the whole GPU, and none is visible (create GPU and "
          "compute instances, or list MIG-<uuid> in CUDA_VISIBLE_DEVICES)";
    } else if (gpu.compute_mode.value_or(0) == 2) {
      hidden.reason = "its compute mode is Prohibited (nvidia-smi -c): CUDA cannot create a context on it";
    } else if (!cuda.available) {
      hidden.reason = fmt::format("the CUDA runtime has no device: {}", cuda.reason);
    } else {
      hidden.reason =
          "CUDA does not list it although CUDA_VISIBLE_DEVICES allows it: the device cannot be opened by CUDA "
          "(look for Xid errors in the kernel log, or a driver and CUDA version mismatch)";
    }
    mapping.hidden.push_back(std::move(hidden));
  }
  for (const auto& note : mapping.selection.notes) mapping.notes.push_back(note);
  return mapping;
}

}  // namespace linkscope::discover
