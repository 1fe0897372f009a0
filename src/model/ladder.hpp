#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json_read.hpp"

// The Run's `measurements.ladder`: the same collective with paths taken away (P2P, then SHM) and algorithms forced,
// each layer in its own process; per layer the transport NCCL really used, busbw at the largest size, the path's
// theoretical peak (model/link_rate), efficiency and slowdown against the best layer.
namespace linkscope::model {

// The theoretical per-direction bandwidth of a path, or why there is none.
struct PathPeak {
  std::optional<double> peak_gbps;  // GB/s (1e9 bytes/s), per direction
  std::string basis;                // how it was computed: "NVLink 18 x 26.562 GB/s"
  std::string reason;               // why there is no number (peak_gbps empty), or a caveat
};

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
  nlohmann::json extra;
};

struct Ladder {
  std::string op;
  std::string dtype;
  int nranks = 0;
  std::vector<LadderLayer> layers;
  nlohmann::json extra;
};

// Fills efficiency and slowdown from busbw and peak.
void finish_ladder(Ladder& ladder);

nlohmann::json to_json(const Ladder& ladder);
Ladder ladder_from_json(const JsonReader& reader);

}  // namespace linkscope::model
