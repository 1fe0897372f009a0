#include "model/measurements.hpp"

namespace linkscope::model {

nlohmann::json to_json(const Measurements& m) {
  nlohmann::json out = nlohmann::json::object();
  if (m.p2p) out["p2p"] = to_json(*m.p2p);
  if (m.patterns) {
    out["patterns"] = patterns_to_json(m.patterns->patterns);
    out["patterns_config"] = pattern_config_json(*m.patterns);
    if (m.patterns->numa) out["numa_sweep"] = to_json(*m.patterns->numa);
  }
  if (m.collectives) {
    out["collectives"] = nlohmann::json::array();
    for (const auto& series : *m.collectives) out["collectives"].push_back(to_json(series));
  }
  if (m.ladder) out["ladder"] = to_json(*m.ladder);
  if (m.cross_host) out["cross_host"] = to_json(*m.cross_host);
  if (m.telemetry) out["telemetry"] = to_json(*m.telemetry);
  if (m.soak) out["soak"] = to_json(*m.soak);
  return with_extras(std::move(out), m.extra);
}

Measurements measurements_from_json(const JsonReader& r) {
  Measurements m;
  if (r.has("p2p")) m.p2p = p2p_results_from_json(r.object("p2p"));
  if (r.has("patterns") || r.has("numa_sweep")) {
    PatternRun run;
    run.patterns = patterns_from_json(r.at("patterns"));
    read_pattern_config(r.object("patterns_config"), run);
    if (r.has("numa_sweep")) run.numa = numa_sweep_from_json(r.object("numa_sweep"));
    m.patterns = std::move(run);
  } else {
    r.skip({"patterns_config"});
  }
  if (r.has("collectives")) {
    m.collectives.emplace();
    for (const auto& series : r.array("collectives")) m.collectives->push_back(series_from_json(series));
  }
  if (r.has("ladder")) m.ladder = ladder_from_json(r.object("ladder"));
  if (r.has("cross_host")) m.cross_host = cross_host_from_json(r.object("cross_host"));
  if (r.has("telemetry")) m.telemetry = telemetry_from_json(r.object("telemetry"));
  if (r.has("soak")) m.soak = soak_from_json(r.object("soak"));
  m.extra = r.extras();
  return m;
}

}  // namespace linkscope::model
