#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json_read.hpp"

// What NCCL's own model predicts for one communicator over the topology of the `model` section: the graphs its
// channel search finds and its tuner's choice per collective and size (docs/run-schema.md, "### model",
// `graphs` and `tuning`). src/topo computes it; the doctor's rules and the reports read it. Predictions, not
// measurements.
namespace linkscope::model {

// One searched graph as NCCL prints it ("Pattern 4, crossNic 0, nChannels 12, bw 30.000000/30.000000, type
// NVL/PIX, sameChannels 1") with the GPUs (ranks) of each channel in order.
struct TopoGraph {
  std::string graph;         // "ring", "tree"
  int pattern = 0;           // NCCL_TOPO_PATTERN_*: 4 ring, 1 balanced tree, 3 tree ...
  int n_channels = 0;
  double bw_intra = 0, bw_inter = 0;  // NCCL's per-channel search weight, GB/s
  std::string type_intra, type_inter;
  bool cross_nic = false, same_channels = false;
  bool fell_back = false;    // nothing found: NCCL's "simple order" fallback
  std::vector<std::vector<int>> channels;
  nlohmann::json extra;
};

// The tuner's choice for one collective at one size.
struct TuningChoice {
  std::string collective;    // "all_reduce", "all_gather" ... (nccl-tests names)
  std::uint64_t size_bytes = 0;   // the size asked for (nccl-tests' size column)
  std::uint64_t tuner_bytes = 0;  // nBytes as NCCL's tuner sees it
  std::optional<std::string> algorithm, protocol;  // "Ring", "LL128"; absent with `error`
  int channels = 0;          // the most channels NCCL uses for it
  std::optional<double> time_us, algbw_gbps, busbw_gbps;
  std::optional<std::string> error;  // NCCL finds no algorithm ("invalid usage ...")
  nlohmann::json extra;
};

struct Prediction {
  // Why nothing was predicted (no GPU, ranks not 0..n-1, NCCL_ALGO refused, one rank); empty when predicted.
  std::string unavailable;
  int n_ranks = 0;
  int coll_channels = 0;     // channels of collectives NCCL connects (comm->nChannels)
  std::vector<TopoGraph> graphs;
  std::vector<TuningChoice> tuning;

  bool empty() const { return unavailable.empty() && graphs.empty() && tuning.empty(); }
  // The choice for `collective` at exactly `size_bytes`; nullptr when not predicted.
  const TuningChoice* choice(const std::string& collective, std::uint64_t size_bytes) const;
};

// Writes `graphs`, `tuning` and `prediction` (n_ranks, coll_channels, unavailable) into the model section.
void put_prediction(nlohmann::json& model_section, const Prediction& prediction);
// Reads them back; missing fields read as absent (an older document), wrong types are InputErrors.
Prediction prediction_from_json(const JsonReader& model_section);

}  // namespace linkscope::model
