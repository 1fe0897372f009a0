#include "model/link_rate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "core/text.hpp"

namespace linkscope::model {

namespace {

bool is_active(const Nvlink& link) { return link.active.value_or(false); }

}  // namespace

std::optional<double> typical_nvlink_speed(const Gpu& gpu) {
  std::map<long long, int> counts;  // speed in 1/1000 GB/s -> number of links
  for (const auto& link : gpu.nvlink_list()) {
    if (!is_active(link)) continue;
    if (link.speed_gbps) {
      ++counts[std::llround(*link.speed_gbps * 1000.0)];
    } else if (link.version) {
      if (const auto nominal = nvlink_version_gbps(*link.version)) ++counts[std::llround(*nominal * 1000.0)];
    }
  }
  if (counts.empty()) return std::nullopt;
  auto best = counts.begin();
  for (auto it = counts.begin(); it != counts.end(); ++it) {
    if (it->second > best->second || (it->second == best->second && it->first > best->first)) best = it;
  }
  return static_cast<double>(best->first) / 1000.0;
}

namespace {

double link_speed(const Nvlink& link, double fallback) { return link.speed_gbps.value_or(fallback); }

// Sum of link speeds and their description: "NVLink 18 x 26.562 GB/s" when equal, "NVLink 12 links, 300.0 GB/s".
std::optional<LinkRate> nvlink_sum(const std::vector<const Nvlink*>& links, double fallback_speed) {
  if (links.empty()) return std::nullopt;
  double total = 0;
  bool equal = true;
  const double first = link_speed(*links.front(), fallback_speed);
  for (const Nvlink* link : links) {
    const double speed = link_speed(*link, fallback_speed);
    total += speed;
    equal = equal && std::fabs(speed - first) < 1e-6;
  }
  if (total <= 0) return std::nullopt;
  const std::string basis = equal ? fmt::format("NVLink {} x {:g} GB/s", links.size(), first)
                                  : fmt::format("NVLink {} links, {:.1f} GB/s", links.size(), total);
  return LinkRate{total, basis, LinkRate::Kind::kNvlink};
}

std::vector<const Nvlink*> active_links(const Gpu& gpu) {
  std::vector<const Nvlink*> links;
  for (const auto& link : gpu.nvlink_list()) {
    if (is_active(link)) links.push_back(&link);
  }
  return links;
}

}  // namespace

std::optional<double> active_nvlink_rate(const Gpu& gpu) {
  if (!gpu.nvlinks.has_value()) return std::nullopt;
  const double fallback = typical_nvlink_speed(gpu).value_or(0);
  double total = 0;
  for (const auto& link : *gpu.nvlinks) {
    if (is_active(link)) total += link_speed(link, fallback);
  }
  return total;
}

std::optional<double> pcie_rate_gbps(int generation, int width) {
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

std::optional<int> pcie_generation_of_speed(std::string_view speed) {
  // The kernel writes "2.5 GT/s", "5 GT/s" / "5.0 GT/s PCIe", ... "64.0 GT/s PCIe"; older kernels omit "PCIe".
  char* end = nullptr;
  const std::string text(speed);
  const double gts = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || text.find("GT/s") == std::string::npos) return std::nullopt;
  if (gts >= 63.0) return 6;
  if (gts >= 31.0) return 5;
  if (gts >= 15.0) return 4;
  if (gts >= 7.0) return 3;
  if (gts >= 4.0) return 2;
  if (gts >= 2.0) return 1;
  return std::nullopt;
}

std::optional<double> nvlink_version_gbps(int version) {
  switch (version) {
    case 1: return 20.0;
    case 2:
    case 3: return 25.0;
    case 4: return 26.5625;
    case 5: return 50.0;
    default: return std::nullopt;
  }
}

std::optional<LinkRate> pcie_link_rate(const Gpu& gpu) {
  const auto generation = gpu.pcie.max_gen.has_value() ? gpu.pcie.max_gen : gpu.pcie.current_gen;
  const auto width = gpu.pcie.current_width.has_value() ? gpu.pcie.current_width : gpu.pcie.max_width;
  if (!generation || !width) return std::nullopt;
  const auto gbps = pcie_rate_gbps(*generation, *width);
  if (!gbps) return std::nullopt;
  return LinkRate{*gbps, fmt::format("PCIe Gen{} x{}", *generation, *width), LinkRate::Kind::kPcie};
}

std::optional<LinkRate> host_link_rate(const Gpu& gpu) {
  if (gpu.c2c && gpu.c2c->active_links > 0 && gpu.c2c->max_bw_gbps) {
    // NVML's C2C_LINK_GET_MAX_BW is per link (GH200: 10 x 45 GB/s = 450 GB/s per direction); NCCL multiplies too.
    const double per_link = *gpu.c2c->max_bw_gbps;
    return LinkRate{per_link * gpu.c2c->active_links,
                    fmt::format("C2C {} x {:g} GB/s", gpu.c2c->active_links, per_link), LinkRate::Kind::kC2c};
  }
  return pcie_link_rate(gpu);
}

std::optional<LinkRate> nvlink_pair_rate(const System& system, int a, int b) {
  const Gpu* ga = system.gpu_by_cuda_ordinal(a);
  const Gpu* gb = system.gpu_by_cuda_ordinal(b);
  if (ga == nullptr || gb == nullptr) return std::nullopt;
  const GpuPair* pair = system.pair(a, b);
  if (ga->links_to_nvswitch() && gb->links_to_nvswitch()) {
    // Through the NVSwitch fabric a pair can use every active link of the end with fewer.
    const Gpu* slow = ga->active_nvlinks() <= gb->active_nvlinks() ? ga : gb;
    return nvlink_sum(active_links(*slow), typical_nvlink_speed(*slow).value_or(0));
  }
  // Direct links: the links of `a` whose far end is `b`, when NVML names the far ends; else the pair's count.
  std::vector<const Nvlink*> direct;
  for (const auto& link : ga->nvlink_list()) {
    if (is_active(link) && link.remote_bdf && !gb->pci_bdf.empty() && lower(*link.remote_bdf) == lower(gb->pci_bdf)) {
      direct.push_back(&link);
    }
  }
  const double speed = typical_nvlink_speed(*ga).value_or(typical_nvlink_speed(*gb).value_or(0));
  if (!direct.empty()) return nvlink_sum(direct, speed);
  if (pair != nullptr && pair->nvlink_count > 0 && speed > 0) {
    return LinkRate{pair->nvlink_count * speed, fmt::format("NVLink {} x {:g} GB/s", pair->nvlink_count, speed),
                    LinkRate::Kind::kNvlink};
  }
  return std::nullopt;
}

std::optional<LinkRate> gpu_pair_rate(const System& system, int a, int b) {
  const GpuPair* pair = system.pair(a, b);
  const bool nvlinked = pair != nullptr && (pair->nvlink_count > 0 || pair->relation.value_or("").rfind("NV", 0) == 0);
  if (nvlinked) {
    if (auto rate = nvlink_pair_rate(system, a, b)) return rate;
  }
  const Gpu* ga = system.gpu_by_cuda_ordinal(a);
  const Gpu* gb = system.gpu_by_cuda_ordinal(b);
  if (ga == nullptr || gb == nullptr) return std::nullopt;
  const auto ra = pcie_link_rate(*ga);
  const auto rb = pcie_link_rate(*gb);
  if (!ra || !rb) return std::nullopt;
  return ra->gbps <= rb->gbps ? ra : rb;
}

std::optional<LinkRate> slowest_pair_rate(const System& system, const std::vector<int>& gpus) {
  std::optional<LinkRate> slowest;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    for (std::size_t j = i + 1; j < gpus.size(); ++j) {
      const auto rate = gpu_pair_rate(system, gpus[i], gpus[j]);
      if (rate && (!slowest || rate->gbps < slowest->gbps)) slowest = rate;
    }
  }
  return slowest;
}

std::optional<LinkRate> nic_rate(const Nic& nic) {
  std::optional<double> gbits;
  for (const auto& port : nic.ports) {
    if (port.rate_gbps) gbits = std::max(gbits.value_or(0.0), *port.rate_gbps);
  }
  if (!gbits && nic.speed_mbps) gbits = static_cast<double>(*nic.speed_mbps) / 1000.0;
  if (!gbits || *gbits <= 0) return std::nullopt;
  return LinkRate{*gbits / 8.0, fmt::format("NIC {} {:g} Gb/s", nic.name, *gbits), LinkRate::Kind::kNic};
}

std::optional<LinkRate> named_nic_rate(const System& system, const std::string& name_and_port) {
  if (name_and_port.empty()) return std::nullopt;
  const auto colon = name_and_port.find(':');
  const std::string name = name_and_port.substr(0, colon);
  std::optional<int> port;
  if (colon != std::string::npos) port = std::atoi(name_and_port.c_str() + colon + 1);
  for (const auto& nic : system.nics) {
    if (nic.name != name) continue;
    for (const auto& p : nic.ports) {
      if (port && p.port != *port) continue;
      if (p.rate_gbps) {
        return LinkRate{*p.rate_gbps / 8.0, fmt::format("NIC {}:{} {:g} Gb/s", nic.name, p.port, *p.rate_gbps),
                        LinkRate::Kind::kNic};
      }
    }
    if (nic.speed_mbps) return nic_rate(nic);
  }
  return std::nullopt;
}

namespace {

std::optional<LinkRate> slowest_pcie(const System& system, const std::vector<int>& gpus, std::string& missing) {
  std::optional<LinkRate> slowest;
  for (int ordinal : gpus) {
    const Gpu* gpu = system.gpu_by_cuda_ordinal(ordinal);
    const auto rate = gpu != nullptr ? pcie_link_rate(*gpu) : std::nullopt;
    if (!rate) {
      missing = fmt::format("no PCIe generation/width for GPU {} in the hardware facts", ordinal);
      return std::nullopt;
    }
    if (!slowest || rate->gbps < slowest->gbps) slowest = rate;
  }
  return slowest;
}

PathPeak p2p_peak(const System& system, const std::vector<int>& gpus) {
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
    const GpuPair* pair = system.pair(a, b);
    std::optional<LinkRate> rate;
    if (pair != nullptr && pair->nvlink_count > 0) {
      rate = nvlink_pair_rate(system, a, b);
      if (!rate) {
        return PathPeak{std::nullopt, "",
                        fmt::format("GPUs {} and {} share {} NVLinks but the hardware facts give no link speed", a, b,
                                    pair->nvlink_count)};
      }
    } else {
      std::string missing;
      rate = slowest_pcie(system, {a, b}, missing);
      if (!rate) return PathPeak{std::nullopt, "", missing};
    }
    if (!result.peak_gbps || rate->gbps < *result.peak_gbps) {
      result.peak_gbps = rate->gbps;
      result.basis = rate->basis;
    }
  }
  return result;
}

}  // namespace

PathPeak path_peak(const System& system, const std::string& transport, const std::vector<int>& gpus) {
  if (!system.present || system.gpus.empty()) return PathPeak{std::nullopt, "", "hardware facts not collected"};
  if (transport.rfind("P2P", 0) == 0) return p2p_peak(system, gpus);
  if (transport.rfind("SHM", 0) == 0) {
    std::string missing;
    const auto pcie = slowest_pcie(system, gpus, missing);
    if (!pcie) return PathPeak{std::nullopt, "", missing};
    return PathPeak{pcie->gbps, pcie->basis + " through host memory", ""};
  }
  if (transport.rfind("NET", 0) == 0) {
    std::optional<LinkRate> fastest;
    for (const auto& nic : system.nics) {
      const auto rate = nic_rate(nic);
      if (rate && (!fastest || rate->gbps > fastest->gbps)) fastest = rate;
    }
    if (!fastest) return PathPeak{std::nullopt, "", "no NIC speed in the hardware facts"};
    PathPeak peak{fastest->gbps, fastest->basis, ""};
    std::string missing;
    const auto pcie = slowest_pcie(system, gpus, missing);
    if (pcie && pcie->gbps < fastest->gbps) {
      peak.peak_gbps = pcie->gbps;
      peak.basis = pcie->basis + " (below the " + fastest->basis + ")";
    }
    if (transport.find("Socket") != std::string::npos) {
      peak.reason = "NET/Socket between GPUs of one host may go through the kernel's loopback, not the NIC";
    }
    return peak;
  }
  if (transport == "none") return PathPeak{std::nullopt, "", "one rank: no transport"};
  return PathPeak{std::nullopt, "", fmt::format("no peak model for transport '{}'", transport)};
}

}  // namespace linkscope::model
