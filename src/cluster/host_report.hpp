#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/roster.hpp"
#include "model/json_read.hpp"
#include "model/system.hpp"

// What one host's leader sends rank 0 after discovering its machine: the host's identity and ranks, its typed
// hardware facts (the Run's `system` section of that host), the NCCL library it would use, and what failed. Rank 0
// compares these (cluster/host_comparison.hpp). JSON only on the wire (an MPI message).
namespace linkscope::cluster {

struct HostReport {
  std::string name;
  std::string hostname;
  std::string identity_source;
  std::vector<int> ranks;
  int leader = 0;
  std::optional<std::string> nccl_version;        // the libnccl.so.2 this host would load
  std::string nccl_version_reason;                // why it is unknown
  std::shared_ptr<const model::System> system;    // the host's facts; none when discovery failed
  std::string error;                              // why there are no facts (empty when there are)
};

// A report carrying the roster's facts about host `index` (identity, ranks, leader).
HostReport host_report_for(const Roster& roster, std::size_t index);

nlohmann::json host_report_to_json(const HostReport& report);
// Reads what host_report_to_json wrote (model::JsonReader::root(message, "...")); a bad shape is an InputError
// naming the message and the field.
HostReport host_report_from_json(const model::JsonReader& reader);

}  // namespace linkscope::cluster
