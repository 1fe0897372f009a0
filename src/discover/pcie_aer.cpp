#include "discover/pcie_aer.hpp"

#include <cstdio>
#include <optional>
#include <sstream>

#include <fmt/format.h>

namespace linkscope::discover {

namespace {

struct AerFile {
  model::GpuCounter counter;
  const char* file;
  const char* total;  // the line with the file's total
};

constexpr AerFile kFiles[] = {{model::GpuCounter::kAerCorrectable, "aer_dev_correctable", "TOTAL_ERR_COR"},
                              {model::GpuCounter::kAerNonfatal, "aer_dev_nonfatal", "TOTAL_ERR_NONFATAL"},
                              {model::GpuCounter::kAerFatal, "aer_dev_fatal", "TOTAL_ERR_FATAL"}};

// The value of the line "<name> <count>" in an AER attribute.
std::optional<std::int64_t> total_of(const std::string& text, const std::string& name) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(name + " ", 0) != 0) continue;
    long long value = 0;
    if (std::sscanf(line.c_str() + name.size(), " %lld", &value) == 1 && value >= 0) return value;
  }
  return std::nullopt;
}

}  // namespace

void read_aer_counters(const SysfsRoot& sysfs, const std::string& pci_bdf, model::GpuCounters& counters,
                       std::map<std::string, std::string>& unavailable) {
  for (const auto& entry : kFiles) {
    const std::string path = fmt::format("/sys/bus/pci/devices/{}/{}", pci_bdf, entry.file);
    const std::string key(model::counter_key(entry.counter));
    const auto text = sysfs.read_attribute(path);
    if (!text) {
      unavailable.emplace(key, fmt::format("{} is missing or unreadable (no AER: a VM, or a kernel without it)", path));
      continue;
    }
    if (const auto total = total_of(*text, entry.total)) {
      counters[entry.counter] = *total;
    } else {
      unavailable.emplace(key, fmt::format("{} has no {} line", path, entry.total));
    }
  }
}

}  // namespace linkscope::discover
