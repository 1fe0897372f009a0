#include "model/memory_rate.hpp"

#include <array>
#include <string_view>

#include <fmt/format.h>

namespace linkscope::model {

namespace {

constexpr std::int64_t kMiB = 1024 * 1024;

// Datasheet memory bandwidth and L2 size of the products linkscope meets most, for runs without NVML's bus width
// (older documents, NVML missing). Matched by a substring of the product name, first match wins, so the more
// specific names come first. Sources: NVIDIA's H200, H100, A100 and V100 datasheets (memory bandwidth); the L2
// sizes as CUDA reports them (cudaDevAttrL2CacheSize: 50 MiB on H100/H200, 40 MiB on A100, 6 MiB on V100).
struct KnownProduct {
  std::string_view name_part;
  double memory_gbps;
  std::int64_t l2_bytes;
};
constexpr std::array<KnownProduct, 7> kProducts{{
    {"H200", 4800, 50 * kMiB},
    {"H100 PCIe", 2000, 50 * kMiB},
    {"H100", 3350, 50 * kMiB},  // H100 SXM5 80GB HBM3
    {"A100 80GB PCIe", 1935, 40 * kMiB},
    {"A100-SXM4-80GB", 2039, 40 * kMiB},
    {"A100", 1555, 40 * kMiB},  // A100 40GB, SXM4 and PCIe
    {"V100", 900, 6 * kMiB},
}};

const KnownProduct* known_product(const Gpu& gpu) {
  for (const auto& product : kProducts) {
    if (gpu.name.find(product.name_part) != std::string::npos) return &product;
  }
  return nullptr;
}

}  // namespace

std::optional<MemoryRate> memory_rate(const Gpu& gpu) {
  const auto& bus_width_bits = gpu.memory_bus_width_bits;
  if (gpu.clocks.mem_max_mhz && *gpu.clocks.mem_max_mhz > 0 && bus_width_bits && *bus_width_bits > 0) {
    // HBM and GDDR move data on both clock edges: 2 transfers per clock, bus width / 8 bytes each.
    const double gbps = 2.0 * *gpu.clocks.mem_max_mhz * 1e6 * (static_cast<double>(*bus_width_bits) / 8.0) / 1e9;
    return MemoryRate{gbps, fmt::format("NVML {} MHz x {} bit, double data rate", *gpu.clocks.mem_max_mhz,
                                        *bus_width_bits)};
  }
  if (const KnownProduct* product = known_product(gpu)) {
    return MemoryRate{product->memory_gbps, fmt::format("datasheet: {}", gpu.name)};
  }
  return std::nullopt;
}

std::optional<std::int64_t> l2_cache_bytes(const Gpu& gpu) {
  if (gpu.l2_cache_bytes && *gpu.l2_cache_bytes > 0) return *gpu.l2_cache_bytes;
  if (const KnownProduct* product = known_product(gpu)) return product->l2_bytes;
  return std::nullopt;
}

}  // namespace linkscope::model
