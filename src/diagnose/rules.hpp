#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include "diagnose/context.hpp"

// The finding rules, one per file (src/diagnose/rule_<id>.cpp). Each is a pure function of the Context and
// returns at most one finding of its id (all subjects of that id gathered in one finding).
namespace linkscope::diagnose {

using RuleFunction = std::optional<Finding> (*)(const Context&);

struct Rule {
  std::string_view id;
  std::string_view summary;  // what the rule looks for (docs, `--list`)
  RuleFunction check;
};

// In report order: facts about the machine first, then configuration, then measured symptoms.
const std::vector<Rule>& all_rules();

std::optional<Finding> rule_driver_unavailable(const Context& context);
std::optional<Finding> rule_nvml_unavailable(const Context& context);
std::optional<Finding> rule_nccl_topology_refused(const Context& context);
std::optional<Finding> rule_nccl_version_not_modelled(const Context& context);
std::optional<Finding> rule_gpu_count_mismatch(const Context& context);
std::optional<Finding> rule_nvlink_missing(const Context& context);
std::optional<Finding> rule_nvlink_link_down(const Context& context);
std::optional<Finding> rule_pcie_link_degraded(const Context& context);
std::optional<Finding> rule_p2p_unavailable(const Context& context);
std::optional<Finding> rule_nvls_unavailable(const Context& context);
std::optional<Finding> rule_acs_redirects_p2p(const Context& context);
std::optional<Finding> rule_iommu_translates_p2p(const Context& context);
std::optional<Finding> rule_gdr_unavailable(const Context& context);
std::optional<Finding> rule_nic_not_nearest(const Context& context);
std::optional<Finding> rule_vm_topology_hidden(const Context& context);
std::optional<Finding> rule_ecc_errors(const Context& context);
std::optional<Finding> rule_xid_during_run(const Context& context);
std::optional<Finding> rule_pcie_errors_during_run(const Context& context);
std::optional<Finding> rule_nvlink_errors_during_run(const Context& context);
std::optional<Finding> rule_wrong_results(const Context& context);
std::optional<Finding> rule_gpu_throttled(const Context& context);
std::optional<Finding> rule_link_flap(const Context& context);
std::optional<Finding> rule_soak_metric_changed(const Context& context);
std::optional<Finding> rule_nccl_env_path_removed(const Context& context);
std::optional<Finding> rule_transport_mismatch(const Context& context);
std::optional<Finding> rule_nccl_hint(const Context& context);
std::optional<Finding> rule_gpu_memory_held(const Context& context);
std::optional<Finding> rule_noisy_measurement(const Context& context);
std::optional<Finding> rule_pair_asymmetric(const Context& context);
std::optional<Finding> rule_gpu_slow(const Context& context);
std::optional<Finding> rule_bandwidth_below_expected(const Context& context);
std::optional<Finding> rule_host_link_below_expected(const Context& context);
std::optional<Finding> rule_host_differs(const Context& context);
std::optional<Finding> rule_cross_host_slow(const Context& context);
std::optional<Finding> rule_nccl_unavailable(const Context& context);
std::optional<Finding> rule_run_incomplete(const Context& context);
std::optional<Finding> rule_nccl_choice_differs(const Context& context);
std::optional<Finding> rule_busbw_below_prediction(const Context& context);
std::optional<Finding> rule_outside_fleet_baseline(const Context& context);

// Pairs (rank a < rank b) that NCCL's model joins by something other than NVLink although both GPUs have NVLinks
// and at least the mesh share of identical pairs are NVLinked: a missing direct link (nvlink-missing).
std::vector<std::pair<int, int>> model_pairs_missing_nvlink(const Evidence& evidence);

// Adds a CUDA ordinal to a finding's GPUs once (none for a GPU CUDA does not show).
void add_gpu_once(std::vector<int>& gpus, std::optional<int> cuda_ordinal);

// The value most identical peers share (values within `tolerance` relative count as equal; ties go to the larger).
std::optional<double> peer_reference(const std::vector<double>& values, double tolerance);

}  // namespace linkscope::diagnose
