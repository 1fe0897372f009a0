#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "model/system.hpp"

// What a GPU's own memory can carry, and how large its L2 is: the facts a local (on-GPU) copy is judged against.
// The one place for them: NVML's memory clock (clocks.mem_max_mhz) x bus width (memory_bus_width_bits) where the
// Run has both, else the product's datasheet figure from the table in memory_rate.cpp; CUDA's L2 size
// (l2_cache_bytes), else the table's. Documents saved before discovery read the two facts have neither.
namespace linkscope::model {

struct MemoryRate {
  double gbps = 0;    // read + write traffic the memory sustains at its peak, GB/s (1e9 bytes/s)
  std::string basis;  // "NVML 3201 MHz x 6144 bit, double data rate" or "datasheet: NVIDIA H200"
};

// The GPU's peak memory bandwidth; nothing when neither NVML's facts nor the product table know it.
std::optional<MemoryRate> memory_rate(const Gpu& gpu);
// The GPU's L2 size in bytes (CUDA's attribute, else the product table); nothing when unknown.
std::optional<std::int64_t> l2_cache_bytes(const Gpu& gpu);

}  // namespace linkscope::model
