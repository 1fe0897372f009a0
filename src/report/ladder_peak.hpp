#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

// The theoretical per-direction bandwidth of the path a transport uses between GPUs, computed only from the
// `system` section of a Run document (docs/run-schema.md: NVLink count x per-link speed, PCIe generation x
// width, NIC speed). Pure: no hardware access, so it is tested on JSON alone.
namespace linkscope::report {

struct PathPeak {
  std::optional<double> peak_gbps;  // GB/s (1e9 bytes/s), per direction
  std::string basis;                // how it was computed: "NVLink 18 x 26.562 GB/s"
  std::string reason;               // why there is no number (peak_gbps empty), or a caveat
};

// Per-direction PCIe payload bandwidth of one link: lanes x transfer rate x encoding efficiency
// (8b/10b for gen 1-2, 128b/130b for gen 3-5, 242/256 FLIT for gen 6); nothing for unknown generations.
std::optional<double> pcie_gbps(int generation, int width);

// `transport` is a runtime transport label ("P2P/CUMEM/read", "SHM", "NET/IB/GDRDMA", "NET/Socket", "none");
// `gpus` are the CUDA ordinals the collective ran on, in rank order. P2P uses the NVLinks of each
// neighbouring pair (or their PCIe links), SHM the GPUs' PCIe links, NET the fastest NIC port (and PCIe).
PathPeak path_peak(const nlohmann::json& system, const std::string& transport, const std::vector<int>& gpus);

}  // namespace linkscope::report
