#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/ladder_peak.hpp"

// The path ladder: the same collective with paths taken away (P2P, then SHM) and algorithms forced, each
// in its own process; per layer the transport NCCL really used, busbw at the largest size, the path's
// theoretical peak, efficiency and slowdown against the best layer. Plain data plus its table and JSON.
namespace linkscope::report {

struct LadderLayer {
  std::string name;                          // default, p2p-level, p2p-disabled, network, ring, tree
  std::map<std::string, std::string> env;    // what the layer sets
  std::string status = "ok";                 // ok, error, timeout, skipped
  std::optional<std::string> reason;
  std::optional<std::string> transport;      // dominant transport from the runtime layer
  std::string transports;                    // all transports with connection counts
  std::optional<std::uint64_t> bytes;        // the size busbw is taken at
  std::optional<double> busbw_gbps;
  std::optional<std::int64_t> wrong;
  PathPeak peak;
  std::optional<double> efficiency;          // busbw / peak
  std::optional<double> slowdown;            // best layer's busbw / this busbw
};

struct Ladder {
  std::string op;
  std::string dtype;
  int nranks = 0;
  std::vector<LadderLayer> layers;
};

// The layers and their environment. `p2p_level` is the NCCL_P2P_LEVEL that still allows P2P between the
// GPUs (NCCL's worst GPU-to-GPU path type from the default run); nothing when unknown.
std::vector<LadderLayer> ladder_layers(const std::optional<std::string>& p2p_level);

// Fills efficiency and slowdown from busbw and peak.
void finish_ladder(Ladder& ladder);

std::string render_ladder_table(const Ladder& ladder);
nlohmann::json to_json(const Ladder& ladder);

}  // namespace linkscope::report
