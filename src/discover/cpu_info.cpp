#include "discover/cpu_info.hpp"

#include <cstdlib>
#include <map>
#include <sstream>

#include "core/text.hpp"

namespace linkscope::discover {

std::string build_arch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "arm64";
#elif defined(__PPC__)
  return "ppc64";
#else
  return "";
#endif
}

CpuInfo parse_cpuinfo(std::string_view text) {
  CpuInfo info;
  std::map<std::string, std::string> first;  // keys of the first processor block
  std::istringstream lines{std::string(text)};
  std::string line;
  bool first_block_done = false;  // blocks are separated by blank lines
  while (std::getline(lines, line)) {
    if (trim_spaces(line).empty()) {
      if (!first.empty()) first_block_done = true;
      continue;
    }
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim_spaces(std::string_view(line).substr(0, colon));
    const std::string value = trim_spaces(std::string_view(line).substr(colon + 1));
    if (key == "processor") ++info.logical_cpus;
    if (!first_block_done && !first.count(key)) first[key] = value;
  }
  if (first.count("flags")) {
    const std::string flags = " " + first["flags"] + " ";
    info.hypervisor = flags.find(" hypervisor ") != std::string::npos;
  }
  if (first.count("vendor_id")) {
    // x86: NCCL reads CPUID leaf 1 and adds the extended family/model bits itself.
    info.arch = "x86_64";
    info.vendor = first["vendor_id"];
    if (first.count("cpu family")) {
      const int family = std::atoi(first["cpu family"].c_str());
      // /proc/cpuinfo shows base + extended family when base is 0xF; NCCL shifts the extended part by 4.
      info.family_id = family >= 0xF ? 0xF + ((family - 0xF) << 4) : family;
    }
    if (first.count("model")) info.model_id = std::atoi(first["model"].c_str());
    info.model_name = first.count("model name") ? first["model name"] : "";
  } else if (first.count("CPU implementer")) {
    info.arch = "arm64";
    info.model_name = first.count("model name") ? first["model name"] : "CPU implementer " + first["CPU implementer"];
  } else if (first.count("cpu") && first["cpu"].find("POWER") != std::string::npos) {
    info.arch = "ppc64";
    info.model_name = first["cpu"];
  }
  return info;
}

std::optional<CpuInfo> read_cpu_info(const SysfsRoot& root) {
  const auto text = root.read_file("/proc/cpuinfo");
  if (!text) return std::nullopt;
  return parse_cpuinfo(*text);
}

}  // namespace linkscope::discover
