#include "model/soak.hpp"

namespace linkscope::model {

nlohmann::json to_json(const Soak& soak) {
  nlohmann::json cycles = nlohmann::json::array();
  for (const auto& cycle : soak.cycles) {
    cycles.push_back({{"index", cycle.index},
                      {"start_s", cycle.start_s},
                      {"seconds", cycle.seconds},
                      {"metrics", cycle.metrics},
                      {"states", cycle.states},
                      {"counters", cycle.counters},
                      {"findings", cycle.findings}});
  }
  return {{"requested_s", soak.requested_s}, {"ended", soak.ended}, {"cycles", cycles}};
}

Soak soak_from_json(const JsonReader& r) {
  Soak soak;
  soak.requested_s = r.number("requested_s").value_or(0);
  soak.ended = r.string_or("ended");
  for (const auto& c : r.array("cycles")) {
    SoakCycle cycle;
    cycle.index = c.small_int("index").value_or(0);
    cycle.start_s = c.number("start_s").value_or(0);
    cycle.seconds = c.number("seconds").value_or(0);
    const JsonReader metrics = c.object("metrics");
    for (const auto& [key, value] : metrics.json().items()) {
      if (const auto number = metrics.number(key)) cycle.metrics[key] = *number;
    }
    cycle.states = c.string_map("states");
    const JsonReader counters = c.object("counters");  // absent before schema 1.7
    for (const auto& [key, value] : counters.json().items()) {
      if (const auto number = counters.integer(key)) cycle.counters[key] = *number;
    }
    cycle.findings = c.strings("findings");
    soak.cycles.push_back(std::move(cycle));
  }
  return soak;
}

}  // namespace linkscope::model
