#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/host_comparison.hpp"
#include "cluster/representatives.hpp"
#include "fleet/baseline.hpp"

// What `cluster --isolate` judges each group's all_reduce busbw against, and where that number comes from. In order:
// the user's --expect-gbps; the fleet baseline (the machine type's all_reduce over hosts at the largest size, else
// its host pairs' sendrecv: both are bounded by the NICs); the model of the hosts' links (a ring over hosts, one GPU
// each, runs at its slowest NIC's port rate). Pure code.
namespace linkscope::cluster {

// A group whose busbw falls more than this share below an --expect-gbps is slow.
inline constexpr double kIsolationShortfall = 0.10;

struct IsolationExpectation {
  double gbps = 0;       // what good hosts reach
  double shortfall = 0;  // a group below (1 - shortfall) x gbps is slow
  std::string from;      // where gbps came from, in words (the report says it)
};

IsolationExpectation given_expectation(double gbps);

// The baseline's statistics of `machine_type` at `bytes`: slow below the fleet's outside floor (fleet/fleet_judge:
// worse than both the relative and the robust z threshold). None, with `why_not`, when the baseline lacks them.
std::optional<IsolationExpectation> baseline_expectation(const fleet::Baseline& baseline,
                                                         const std::string& baseline_name,
                                                         const std::string& machine_type, std::uint64_t bytes,
                                                         std::string& why_not);

// The slowest port rate among the NICs closest to each measuring GPU (`chosen`, per host; hosts with rank -1 are not
// measured): slow below kNicRateShare of it, the pairs' rule. None, with `why_not`, when a measured host's NIC or its
// rate is unknown.
std::optional<IsolationExpectation> nic_expectation(const HostsComparison& hosts,
                                                    const std::vector<Representative>& chosen, std::string& why_not);

}  // namespace linkscope::cluster
