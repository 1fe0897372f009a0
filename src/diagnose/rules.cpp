#include "diagnose/rules.hpp"

#include <algorithm>
#include <cmath>

namespace linkscope::diagnose {

const std::vector<Rule>& all_rules() {
  static const std::vector<Rule> kRules = {
      {"driver-unavailable", "the NVIDIA driver (NVML) cannot be used; only the PCI tree was read",
       &rule_driver_unavailable},
      {"nvml-unavailable", "CUDA works but NVML cannot be used: copies measured, NVLink/PCIe/clock facts and "
       "telemetry missing", &rule_nvml_unavailable},
      {"nccl-topology-refused", "NCCL would stop with an error while building its graph of this topology",
       &rule_nccl_topology_refused},
      {"nccl-version-not-modelled", "the NCCL in use is outside the versions modelled: the nearest one stands in",
       &rule_nccl_version_not_modelled},
      {"gpu-count-mismatch", "NVML and CUDA see a different number of GPUs (CUDA_VISIBLE_DEVICES, MIG)",
       &rule_gpu_count_mismatch},
      {"nvlink-missing", "a GPU or pair without the NVLink its identical peers have", &rule_nvlink_missing},
      {"nvlink-link-down", "fewer active NVLinks, or slower links, than identical peers", &rule_nvlink_link_down},
      {"pcie-link-degraded", "PCIe link below its maximum or below identical peers", &rule_pcie_link_degraded},
      {"p2p-unavailable", "no peer access where NVLink or a PCIe switch would allow it", &rule_p2p_unavailable},
      {"nvls-unavailable", "NVSwitch-connected GPUs NCCL cannot use NVLS on: fabric registration not done or failed "
       "(Fabric Manager), or no multicast", &rule_nvls_unavailable},
      {"acs-redirects-p2p", "PCIe ACS redirect on a switch port that GPU peer or GPUDirect RDMA traffic turns at",
       &rule_acs_redirects_p2p},
      {"iommu-translates-p2p", "the IOMMU translates the DMA of GPUs or RDMA NICs whose peer traffic crosses PCIe",
       &rule_iommu_translates_p2p},
      {"gdr-unavailable", "GPUDirect RDMA off to a GPU's nearest RDMA NIC: no peermem nor dma-buf, distance, ACS",
       &rule_gdr_unavailable},
      {"nic-not-nearest", "a GPU's NCCL NIC farther than another RDMA NIC; HCA ports sharing a GUID as two rails",
       &rule_nic_not_nearest},
      {"vm-topology-hidden", "a VM hiding NUMA placement, PCIe switches or NVLink remotes from NCCL's topology",
       &rule_vm_topology_hidden},
      {"ecc-errors", "uncorrected (or corrected) ECC errors, ECC counts growing during the run, retired pages and "
       "remapped rows", &rule_ecc_errors},
      {"xid-during-run", "Xid errors the driver reported while linkscope measured, with their meaning and step",
       &rule_xid_during_run},
      {"pcie-errors-during-run", "PCIe replay or AER error counters that grew while linkscope measured",
       &rule_pcie_errors_during_run},
      {"nvlink-errors-during-run", "NVLink CRC, replay or recovery counters that grew while linkscope measured",
       &rule_nvlink_errors_during_run},
      {"wrong-results", "copies or collectives that delivered wrong data", &rule_wrong_results},
      {"link-flap", "a PCIe width or NVLink state that changed between the cycles of a soak (doctor --soak)",
       &rule_link_flap},
      {"gpu-throttled", "clocks held down by thermal, power-brake or hardware slowdown", &rule_gpu_throttled},
      {"nccl-env-path-removed", "NCCL_* variables that remove or force paths, protocols or algorithms",
       &rule_nccl_env_path_removed},
      {"transport-mismatch", "NCCL used a slower transport than the topology allows", &rule_transport_mismatch},
      {"nccl-hint", "NCCL printed a HINT about an error it recognised (ACS breaking GPUDirect RDMA, IB timeout, "
       "cross-rail NICs, GID index, topology file)", &rule_nccl_hint},
      {"nccl-choice-differs", "NCCL used another algorithm/protocol/channels than its model", &rule_nccl_choice_differs},
      {"gpu-memory-held", "another process held most of a GPU's memory while the GPU was idle: sizes that needed it "
       "were not measured; steady numbers stand", &rule_gpu_memory_held},
      {"noisy-measurement", "other work on a GPU during the steps (foreign processes by pid, load while no step ran), "
       "or a high coefficient of variation", &rule_noisy_measurement},
      {"soak-metric-changed", "a bandwidth that drifted or stepped over the cycles of a soak (doctor --soak)",
       &rule_soak_metric_changed},
      {"pair-asymmetric", "one direction of a GPU pair slower than the other at large sizes", &rule_pair_asymmetric},
      {"gpu-slow", "every pair of one GPU slower than the other pairs", &rule_gpu_slow},
      {"bandwidth-below-expected", "copies or busbw at large sizes below the expected share of the link rate",
       &rule_bandwidth_below_expected},
      {"busbw-below-prediction", "a size far below the busbw NCCL's model predicts", &rule_busbw_below_prediction},
      {"host-link-below-expected", "host copies or host latency of a GPU worse than its PCIe/C2C link allows", &rule_host_link_below_expected},
      {"host-differs", "hosts of one MPI job with a different driver, CUDA, NCCL, GPU count, links or NICs",
       &rule_host_differs},
      {"outside-fleet-baseline", "numbers worse than the fleet baseline of this machine type (relative and robust z), "
       "or a machine type the baseline lacks", &rule_outside_fleet_baseline},
      {"cross-host-slow", "a host, NIC or host pair slower than the others, or failing, between hosts",
       &rule_cross_host_slow},
      {"nccl-unavailable", "libnccl.so.2 cannot be opened: no collective could be measured", &rule_nccl_unavailable},
      {"run-incomplete", "the run stopped before its last step (interrupted)", &rule_run_incomplete},
  };
  return kRules;
}

void add_gpu_once(std::vector<int>& gpus, std::optional<int> cuda_ordinal) {
  if (cuda_ordinal && std::find(gpus.begin(), gpus.end(), *cuda_ordinal) == gpus.end()) gpus.push_back(*cuda_ordinal);
}

namespace {

bool within_tolerance(double candidate, double v, double tolerance) {
  const double scale = std::max(std::fabs(candidate), std::fabs(v));
  return scale == 0 ? true : std::fabs(candidate - v) <= tolerance * scale;
}

}  // namespace

std::optional<double> peer_reference(const std::vector<double>& values, double tolerance) {
  if (values.empty()) return std::nullopt;
  std::optional<double> best;
  std::size_t best_count = 0;
  const auto consider = [&](double candidate, std::size_t count) {
    if (count > best_count || (count == best_count && best && candidate > *best)) {
      best = candidate;
      best_count = count;
    }
  };
  if (!(tolerance >= 0 && tolerance < 1)) {
    // No rule asks this; the values a candidate matches need not be one run of the sorted values.
    for (const double candidate : values) {
      const auto matches = [&](double v) { return within_tolerance(candidate, v, tolerance); };
      consider(candidate, static_cast<std::size_t>(std::count_if(values.begin(), values.end(), matches)));
    }
    return best;
  }
  // Below a tolerance of 1 a candidate matches only values of its own sign, in one run of the sorted values around
  // it, so each distinct candidate's count is two binary searches: O(n log n), where counting against every value
  // was quadratic per GPU (a GPU's peers' NVLink versions: cubic in the GPUs, minutes for 256).
  std::vector<double> sorted(values);
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size();) {
    const double candidate = sorted[i];
    std::size_t same_end = i;
    while (same_end < sorted.size() && sorted[same_end] == candidate) ++same_end;
    const auto first = std::partition_point(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(i),
                                            [&](double v) { return !within_tolerance(candidate, v, tolerance); });
    const auto last = std::partition_point(sorted.begin() + static_cast<std::ptrdiff_t>(same_end), sorted.end(),
                                           [&](double v) { return within_tolerance(candidate, v, tolerance); });
    consider(candidate, static_cast<std::size_t>(last - first));
    i = same_end;
  }
  return best;
}

}  // namespace linkscope::diagnose
