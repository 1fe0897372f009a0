#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "discover/cuda_source.hpp"
#include "discover/nvml_source.hpp"

namespace linkscope::discover {

// CUDA_VISIBLE_DEVICES as the CUDA runtime reads it: comma-separated entries, each an index into the
// enumeration order (CUDA_DEVICE_ORDER), a "GPU-<uuid>" (a unique prefix is enough) or a "MIG-<uuid>".
// The runtime stops at the first entry it cannot use and ignores the rest.
struct VisibleDevicesSpec {
  bool set = false;
  std::string text;
  std::vector<std::string> entries;  // the entries before the first unusable one
  std::string stopped_at;            // the first unusable entry ("" when all were used)
  std::string stop_reason;
};

// Which NVML GPUs (by NVML index) a CUDA_VISIBLE_DEVICES value selects, in CUDA ordinal order.
struct VisibleSelection {
  VisibleDevicesSpec spec;
  std::vector<unsigned> nvml_indices;  // all GPUs when the variable is unset
  bool has_mig_entries = false;
  std::vector<std::string> notes;      // assumptions made (enumeration order)
};

VisibleSelection select_visible_devices(const std::optional<std::string>& cuda_visible_devices,
                                        const std::optional<std::string>& cuda_device_order,
                                        const std::vector<NvmlGpuRecord>& gpus);

struct HiddenGpu {
  unsigned nvml_index = 0;
  std::string uuid;
  std::string pci_bdf;
  std::string reason;
};

// CUDA ordinal <-> NVML index, matched by PCI bus id (never by position: CUDA and NVML order differ).
struct DeviceMapping {
  std::vector<std::optional<int>> cuda_ordinal_of_gpu;  // parallel to NvmlSnapshot::gpus
  std::vector<HiddenGpu> hidden;                        // NVML GPUs without a CUDA ordinal, and why
  std::vector<std::string> notes;                       // CUDA devices without an NVML GPU, MIG instances, ...
  VisibleSelection selection;
};

DeviceMapping map_devices(const NvmlSnapshot& nvml, const CudaSnapshot& cuda, const Environment& env);

}  // namespace linkscope::discover
