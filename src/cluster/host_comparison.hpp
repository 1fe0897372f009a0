#pragma once
#include <string>
#include <utility>
#include <vector>

#include "cluster/host_report.hpp"
#include "cluster/host_traits.hpp"
#include "model/system.hpp"

// Rank 0's comparison of the hosts of a job: each host's traits (cluster/host_traits.hpp), hosts with equal traits
// grouped, and every trait that differs reported with the hosts that differ. Host-only: it reads the typed facts
// each host sent.
namespace linkscope::cluster {

struct HostGroup {
  std::vector<int> hosts;  // indices into HostsComparison::hosts, ascending
};

struct TraitDifference {
  std::string key, label;
  std::string common_value;                      // the value most hosts have (the first host's on a tie)
  std::vector<int> common_hosts;                 // hosts with that value
  std::vector<std::pair<int, std::string>> others;  // (host, its value) for every other host
};

struct HostsComparison {
  std::vector<HostReport> hosts;
  std::vector<std::vector<HostTrait>> traits;  // per host
  std::vector<HostGroup> groups;               // identical hosts; largest group first
  std::vector<TraitDifference> differences;    // in trait order
  std::vector<int> group_of_host;
};

HostsComparison compare_hosts(std::vector<HostReport> hosts);

// How host `index` differs from the others: "NVIDIA driver 575.57.08 (3 other hosts: 580.159.04)".
std::vector<std::string> host_difference_lines(const HostsComparison& comparison, int index);

// Fills `system.hosts`, `system.host_groups` and `system.host_differences` (docs/run-schema.md). `with_facts` false
// leaves out each host's own facts (the traits stay).
void add_hosts_to_system(model::System& system, const HostsComparison& comparison, bool with_facts = true);

}  // namespace linkscope::cluster
