#pragma once
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/collectives.hpp"
#include "model/cross_host.hpp"
#include "model/json_read.hpp"
#include "model/ladder.hpp"
#include "model/p2p.hpp"
#include "model/patterns.hpp"
#include "model/soak.hpp"
#include "model/telemetry.hpp"

// The Run's `measurements`: what each engine measured. A section that was not measured is absent (nullopt), which
// rules and reports tell apart from "measured and empty".
namespace linkscope::model {

struct Measurements {
  std::optional<P2pResults> p2p;
  std::optional<PatternRun> patterns;  // patterns, patterns_config and numa_sweep
  std::optional<std::vector<CollectiveSeries>> collectives;
  std::optional<Ladder> ladder;
  std::optional<CrossHost> cross_host;
  std::optional<Telemetry> telemetry;  // doctor: what the sampler watched during the steps
  std::optional<Soak> soak;            // doctor --soak: every cycle's summary (the sections above: the last cycle)
  nlohmann::json extra;

  // Nothing was measured; telemetry alone (GPUs watched while no step ran) is not a measurement.
  bool empty() const { return !p2p && !patterns && !collectives && !ladder && !cross_host; }
};

nlohmann::json to_json(const Measurements& measurements);
Measurements measurements_from_json(const JsonReader& reader);

}  // namespace linkscope::model
