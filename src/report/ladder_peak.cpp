#include "report/ladder_peak.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace linkscope::report {

namespace {

using nlohmann::json;

const json* find_gpu(const json& system, int ordinal) {
  if (!system.contains("gpus") || !system.at("gpus").is_array()) return nullptr;
  for (const auto& gpu : system.at("gpus")) {
    if (gpu.value("cuda_ordinal", -1) == ordinal) return &gpu;
  }
  return nullptr;
}

std::optional<int> int_field(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int>();
}

// PCIe bandwidth of one GPU: the generation the device and slot support (GPUs lower the link speed when
// idle, so the current generation can understate it) at the width the link trained to.
std::optional<std::pair<double, std::string>> gpu_pcie(const json& gpu) {
  if (!gpu.contains("pcie") || !gpu.at("pcie").is_object()) return std::nullopt;
  const json& p = gpu.at("pcie");
  const auto generation = int_field(p, "max_gen") ? int_field(p, "max_gen") : int_field(p, "current_gen");
  auto width = int_field(p, "current_width") ? int_field(p, "current_width") : int_field(p, "max_width");
  if (!generation || !width) return std::nullopt;
  const auto gbps = pcie_gbps(*generation, *width);
  if (!gbps) return std::nullopt;
  return std::make_pair(*gbps, fmt::format("PCIe Gen{} x{}", *generation, *width));
}

std::optional<std::pair<double, std::string>> slowest_pcie(const json& system, const std::vector<int>& gpus,
                                                           std::string& missing) {
  std::optional<std::pair<double, std::string>> slowest;
  for (int ordinal : gpus) {
    const json* gpu = find_gpu(system, ordinal);
    const auto pcie = gpu != nullptr ? gpu_pcie(*gpu) : std::nullopt;
    if (!pcie) {
      missing = fmt::format("no PCIe generation/width for GPU {} in the hardware facts", ordinal);
      return std::nullopt;
    }
    if (!slowest || pcie->first < slowest->first) slowest = pcie;
  }
  return slowest;
}

const json* find_pair(const json& system, int a, int b) {
  if (!system.contains("pairs") || !system.at("pairs").is_array()) return nullptr;
  for (const auto& pair : system.at("pairs")) {
    const int pa = pair.value("a", -1), pb = pair.value("b", -1);
    if ((pa == a && pb == b) || (pa == b && pb == a)) return &pair;
  }
  return nullptr;
}

// Slowest active NVLink of a GPU, GB/s per direction.
std::optional<double> nvlink_speed(const json& gpu) {
  if (!gpu.contains("nvlinks") || !gpu.at("nvlinks").is_array()) return std::nullopt;
  std::optional<double> slowest;
  for (const auto& link : gpu.at("nvlinks")) {
    if (!link.value("active", false) || !link.contains("speed_gbps") || !link.at("speed_gbps").is_number()) continue;
    const double speed = link.at("speed_gbps").get<double>();
    if (!slowest || speed < *slowest) slowest = speed;
  }
  return slowest;
}

PathPeak p2p_peak(const json& system, const std::vector<int>& gpus) {
  PathPeak result;
  if (gpus.size() < 2) {
    result.reason = "one GPU: no peer path";
    return result;
  }
  // A ring visits neighbouring ranks; the slowest of those pairs bounds the collective.
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const int a = gpus[i];
    const int b = gpus[(i + 1) % gpus.size()];
    if (a == b || (gpus.size() == 2 && i == 1)) continue;
    const json* pair = find_pair(system, a, b);
    const json* gpu_a = find_gpu(system, a);
    const json* gpu_b = find_gpu(system, b);
    std::optional<double> pair_peak;
    std::string basis;
    const int links = pair != nullptr ? pair->value("nvlink_count", 0) : 0;
    if (links > 0 && gpu_a != nullptr && gpu_b != nullptr) {
      const auto speed_a = nvlink_speed(*gpu_a), speed_b = nvlink_speed(*gpu_b);
      if (!speed_a || !speed_b) {
        result.reason = fmt::format("GPUs {} and {} share {} NVLinks but the hardware facts give no link speed", a, b, links);
        return PathPeak{std::nullopt, "", result.reason};
      }
      const double speed = std::min(*speed_a, *speed_b);
      pair_peak = links * speed;
      basis = fmt::format("NVLink {} x {:g} GB/s", links, speed);
    } else {
      std::string missing;
      const auto pcie = slowest_pcie(system, {a, b}, missing);
      if (!pcie) return PathPeak{std::nullopt, "", missing};
      pair_peak = pcie->first;
      basis = pcie->second;
    }
    if (!result.peak_gbps || *pair_peak < *result.peak_gbps) {
      result.peak_gbps = pair_peak;
      result.basis = basis;
    }
  }
  return result;
}

// Fastest NIC port in GB/s (ports' rate_gbps are Gbit/s, as IB and Ethernet rates are quoted; speed_mbps
// is Mbit/s).
std::optional<std::pair<double, std::string>> fastest_nic(const json& system) {
  if (!system.contains("nics") || !system.at("nics").is_array()) return std::nullopt;
  std::optional<std::pair<double, std::string>> best;
  for (const auto& nic : system.at("nics")) {
    const std::string name = nic.value("name", std::string("?"));
    std::optional<double> gbits;
    if (nic.contains("ports") && nic.at("ports").is_array()) {
      for (const auto& port : nic.at("ports")) {
        if (port.contains("rate_gbps") && port.at("rate_gbps").is_number()) {
          gbits = std::max(gbits.value_or(0.0), port.at("rate_gbps").get<double>());
        }
      }
    }
    if (!gbits && nic.contains("speed_mbps") && nic.at("speed_mbps").is_number()) {
      gbits = nic.at("speed_mbps").get<double>() / 1000.0;
    }
    if (!gbits || *gbits <= 0) continue;
    const double gbytes = *gbits / 8.0;
    if (!best || gbytes > best->first) best = std::make_pair(gbytes, fmt::format("NIC {} {:g} Gb/s", name, *gbits));
  }
  return best;
}

}  // namespace

std::optional<double> pcie_gbps(int generation, int width) {
  if (width <= 0) return std::nullopt;
  double lane = 0;
  switch (generation) {
    case 1: lane = 2.5 * 8 / 10 / 8; break;
    case 2: lane = 5.0 * 8 / 10 / 8; break;
    case 3: lane = 8.0 * 128 / 130 / 8; break;
    case 4: lane = 16.0 * 128 / 130 / 8; break;
    case 5: lane = 32.0 * 128 / 130 / 8; break;
    case 6: lane = 64.0 * 242 / 256 / 8; break;
    default: return std::nullopt;
  }
  return lane * width;
}

PathPeak path_peak(const json& system, const std::string& transport, const std::vector<int>& gpus) {
  if (!system.is_object() || system.empty() || !system.contains("gpus")) {
    return PathPeak{std::nullopt, "", "hardware facts not collected"};
  }
  if (transport.rfind("P2P", 0) == 0) return p2p_peak(system, gpus);
  if (transport.rfind("SHM", 0) == 0) {
    std::string missing;
    const auto pcie = slowest_pcie(system, gpus, missing);
    if (!pcie) return PathPeak{std::nullopt, "", missing};
    return PathPeak{pcie->first, pcie->second + " through host memory", ""};
  }
  if (transport.rfind("NET", 0) == 0) {
    const auto nic = fastest_nic(system);
    if (!nic) return PathPeak{std::nullopt, "", "no NIC speed in the hardware facts"};
    PathPeak peak{nic->first, nic->second, ""};
    std::string missing;
    const auto pcie = slowest_pcie(system, gpus, missing);
    if (pcie && pcie->first < nic->first) {
      peak.peak_gbps = pcie->first;
      peak.basis = pcie->second + " (below the NIC's " + nic->second + ")";
    }
    if (transport.find("Socket") != std::string::npos) {
      peak.reason = "NET/Socket between GPUs of one host may go through the kernel's loopback, not the NIC";
    }
    return peak;
  }
  if (transport == "none") return PathPeak{std::nullopt, "", "one rank: no transport"};
  return PathPeak{std::nullopt, "", fmt::format("no peak model for transport '{}'", transport)};
}

}  // namespace linkscope::report
