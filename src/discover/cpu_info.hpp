#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "discover/sysfs_root.hpp"

namespace linkscope::discover {

// The CPU as NCCL describes it in <cpu arch vendor familyid modelid> (topology spec §1.3, §2.4).
struct CpuInfo {
  std::string arch;                 // "x86_64", "arm64", "ppc64"; "" when unknown
  std::optional<std::string> vendor;  // x86 CPUID vendor string: "GenuineIntel", "AuthenticAMD"
  // NCCL's CPUID encoding: family = base + (extended << 4), model = base + (extended << 4). For Intel
  // family 6 this equals /proc/cpuinfo; AMD Zen 3 reads 25 there but 175 in NCCL's dump.
  std::optional<int> family_id;
  std::optional<int> model_id;
  std::string model_name;
  int logical_cpus = 0;
  bool hypervisor = false;  // the "hypervisor" CPU flag: running in a virtual machine
};

// Parses /proc/cpuinfo text. Unknown layouts give an empty arch.
CpuInfo parse_cpuinfo(std::string_view text);
// Reads /proc/cpuinfo below the root; nullopt when it is missing.
std::optional<CpuInfo> read_cpu_info(const SysfsRoot& root);
// The architecture this binary was built for, in NCCL's spelling (used when /proc/cpuinfo is missing).
std::string build_arch();

}  // namespace linkscope::discover
