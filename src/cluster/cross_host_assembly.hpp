#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/cross_host_plan.hpp"
#include "cluster/host_comparison.hpp"
#include "cluster/roster.hpp"
#include "model/collectives.hpp"
#include "model/cross_host.hpp"
#include "model/json_read.hpp"

// The cross-host results as rank 0 puts them together: every rank reports its side of each host pair it took part
// in, and of the all_reduce (an MPI message); rank 0 joins both sides of each pair into the typed model::CrossHost,
// names the slow hosts and NICs, and sets the all_reduce beside the slowest pair.
namespace linkscope::cluster {

// One rank's side of a host pair, or of the all_reduce.
struct MeasuredSide {
  int round = 0;  // pairs: the round, the pair's hosts (a < b), and which end this is (0: a)
  int a = 0, b = 0;
  int side = 0;
  int rank = 0;
  int cuda_device = -1;
  std::string pci_bdf;
  std::string nic;         // the NIC NCCL's connections went through; empty when unknown
  std::string nic_reason;  // why it is unknown
  std::string transport;   // empty when NCCL's log showed none
  std::vector<model::NcclHint> hints;  // NCCL's HINT lines in this side's log
  std::string status = "ok";
  std::optional<std::string> reason;
  std::optional<model::CollectiveSeries> series;  // sent by one end only
};

// What one rank measured across hosts.
struct RankCrossHostResults {
  std::vector<MeasuredSide> pairs;
  std::optional<MeasuredSide> all_reduce;
};

nlohmann::json rank_results_to_json(const RankCrossHostResults& results);
// Reads what rank_results_to_json wrote (model::JsonReader::root(message, "...")).
RankCrossHostResults rank_results_from_json(const model::JsonReader& reader);

// The cross-host section from every rank's results (in rank order): pairs in the order they ran, the all_reduce
// (status, series, each host's transport), the slow hosts and NICs (`hosts`: their facts; may be null), and notes.
model::CrossHost assemble_cross_host(const Roster& roster, const HostsComparison* hosts, const std::string& schedule,
                                     const std::vector<std::uint64_t>& sizes, const CrossHostPlan& plan,
                                     const std::vector<RankCrossHostResults>& ranks);

}  // namespace linkscope::cluster
