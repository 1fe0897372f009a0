#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/ladder.hpp"
#include "model/system.hpp"

// The one place that says what a link can carry, per direction, in GB/s (1e9 bytes/s), from the hardware facts:
// NVLink (per version and link count), PCIe (per generation and width), C2C and NICs. The ladder's share of peak,
// the rules' expectations, the four-numbers table and the hypotheses all ask here.
namespace linkscope::model {

struct LinkRate {
  enum class Kind { kNvlink, kPcie, kC2c, kNic };
  double gbps = 0;
  std::string basis;  // "NVLink 18 x 26.562 GB/s", "PCIe Gen5 x16", "C2C 10 links", "NIC mlx5_0 400 Gb/s"
  Kind kind = Kind::kPcie;
  bool nvlink() const { return kind == Kind::kNvlink; }
};

// Payload rate of one PCIe link: lanes x transfer rate x encoding (8b/10b for Gen1-2, 128b/130b for Gen3-5,
// 242/256 FLIT for Gen6); nothing for an unknown generation or width.
std::optional<double> pcie_rate_gbps(int generation, int width);
// The PCIe generation of a sysfs link speed ("2.5 GT/s" = 1 ... "64.0 GT/s PCIe" = 6); nothing for other text.
std::optional<int> pcie_generation_of_speed(std::string_view speed);
// Nominal per-link, per-direction NVLink rate of a version (1: 20, 2: 25, 3: 25, 4: 26.5625 GB/s as NVML reports
// it, 5: 50); nothing for unknown versions. Facts measured on the machine (NVML's link speed) take precedence.
std::optional<double> nvlink_version_gbps(int version);

// The per-link speed most of a GPU's active NVLinks run at (NVML's reading, else their version's nominal rate).
std::optional<double> typical_nvlink_speed(const Gpu& gpu);
// Sum of a GPU's active NVLinks' speeds (0 with none active); nothing when its NVLinks were not read.
std::optional<double> active_nvlink_rate(const Gpu& gpu);
// A GPU's PCIe link: the highest generation the device and slot support (the link trains down at idle, so the
// current generation understates it) at the width it trained to.
std::optional<LinkRate> pcie_link_rate(const Gpu& gpu);
// A GPU's link to the host: C2C when it has active C2C links, else PCIe.
std::optional<LinkRate> host_link_rate(const Gpu& gpu);
// What a GPU pair's NVLinks carry: through NVSwitches the active links of the end with fewer, else the direct links
// between them; nothing when they share no NVLink or the facts are missing.
std::optional<LinkRate> nvlink_pair_rate(const System& system, int a, int b);
// The pair's link: its NVLinks, else the slower of the two GPUs' PCIe links.
std::optional<LinkRate> gpu_pair_rate(const System& system, int a, int b);
// The slowest pair link among the given GPUs (CUDA ordinals): what bounds a collective over them.
std::optional<LinkRate> slowest_pair_rate(const System& system, const std::vector<int>& gpus);
// A NIC's fastest port (RDMA ports' rate in Gbit/s, an interface's speed in Mbit/s).
std::optional<LinkRate> nic_rate(const Nic& nic);
// "mlx5_0:1" (that port) or "eth0": the named NIC of `system`.
std::optional<LinkRate> named_nic_rate(const System& system, const std::string& nic);

// The peak of the path a transport uses between GPUs (CUDA ordinals in rank order): P2P uses the NVLinks (or PCIe)
// of neighbouring ranks, SHM the GPUs' PCIe links through host memory, NET the fastest NIC port (and PCIe).
PathPeak path_peak(const System& system, const std::string& transport, const std::vector<int>& gpus);

}  // namespace linkscope::model
