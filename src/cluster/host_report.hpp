#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/roster.hpp"

// What one host's leader sends rank 0 after discovering its machine: the host's identity and ranks, the
// Run document's `system` section of that host (discover/facts_json), the NCCL library it would use, and what
// failed. Rank 0 compares these (cluster/host_comparison.hpp).
namespace linkscope::cluster {

struct HostReport {
  std::string name;
  std::string hostname;
  std::string identity_source;
  std::vector<int> ranks;
  int leader = 0;
  std::optional<std::string> nccl_version;  // the libnccl.so.2 this host would load
  std::string nccl_version_reason;          // why it is unknown
  nlohmann::json system;                    // the host's `system` section; null when discovery failed
  std::string error;                        // why there are no facts (empty when there are)
};

// A report carrying the roster's facts about host `index` (identity, ranks, leader).
HostReport host_report_for(const Roster& roster, std::size_t index);

nlohmann::json host_report_to_json(const HostReport& report);
HostReport host_report_from_json(const nlohmann::json& json);

}  // namespace linkscope::cluster
