#pragma once
#include <map>
#include <string>

#include "discover/sysfs_root.hpp"
#include "model/telemetry.hpp"

// PCIe Advanced Error Reporting counts of one device from sysfs: the TOTAL_ERR_COR, TOTAL_ERR_NONFATAL and
// TOTAL_ERR_FATAL lines of /sys/bus/pci/devices/<bdf>/aer_dev_{correctable,nonfatal,fatal} (Linux 4.17 and later).
// Many VMs and kernels built without AER have no such files: the counts are then unavailable, with the reason.
namespace linkscope::discover {

// Sets the three AER counters of `counters`, or records in `unavailable` (keyed by counter_key) why not.
void read_aer_counters(const SysfsRoot& sysfs, const std::string& pci_bdf, model::GpuCounters& counters,
                       std::map<std::string, std::string>& unavailable);

}  // namespace linkscope::discover
