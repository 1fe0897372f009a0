#pragma once
// Saved runs far larger than a real machine gives (issue 13): many GPUs in `system`, many sizes in the p2p sweep.
// Built from a fixture run so every other section stays real. Header-only: the CLI tests and bench/ use it.
#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace linkscope::test {

// `base` with system.gpus repeated to `gpus` entries, each its own CUDA ordinal, NVML index, UUID and bus id
// (the pairs and measurements stay those of the original GPUs).
inline nlohmann::json run_with_gpus(nlohmann::json base, int gpus) {
  auto& list = base["system"]["gpus"];
  const nlohmann::json first = list.at(0);
  list = nlohmann::json::array();
  for (int i = 0; i < gpus; ++i) {
    nlohmann::json gpu = first;
    gpu["cuda_ordinal"] = i;
    gpu["nvml_index"] = i;
    gpu["uuid"] = fmt::format("GPU-00000000-0000-0000-0000-{:012x}", i);
    gpu["pci_bdf"] = fmt::format("{:04x}:{:02x}:00.0", i / 256, i % 256);
    list.push_back(gpu);
  }
  return base;
}

// `base` with its p2p points replaced by one copy-engine point per size 1..`sizes` bytes for each direction of the
// first measured pair, as `p2p -b 1 -e N -i 1` records them.
inline nlohmann::json run_with_p2p_sizes(nlohmann::json base, std::uint64_t sizes) {
  auto& p2p = base["measurements"]["p2p"];
  const nlohmann::json first = p2p["points"].at(0);
  const int src = first["src"].get<int>();
  const int dst = first["dst"].get<int>();
  const double median = first["bandwidth_gbps"]["median"].get<double>();
  nlohmann::json points = nlohmann::json::array();
  nlohmann::json size_list = nlohmann::json::array();
  for (std::uint64_t bytes = 1; bytes <= sizes; ++bytes) {
    size_list.push_back(bytes);
    for (const auto& [a, b] : {std::pair{src, dst}, std::pair{dst, src}}) {
      nlohmann::json point = first;
      point["src"] = a;
      point["dst"] = b;
      point["method"] = "ce";
      point["direction"] = "uni";
      point["bytes"] = bytes;
      point["bandwidth_gbps"]["median"] = median;
      points.push_back(point);
    }
  }
  p2p["points"] = points;
  p2p["config"]["sizes_bytes"] = size_list;
  p2p["config"]["methods"] = nlohmann::json::array({"ce"});
  return base;
}

}  // namespace linkscope::test
