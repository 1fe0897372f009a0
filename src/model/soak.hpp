#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json_read.hpp"

// `doctor --soak DURATION`: the quick steps repeated, one cycle after another, and what each cycle measured and saw,
// so drift (a metric's trend over the cycles), steps (a sudden lasting change) and flaps (a link's state changing)
// can be judged (rules soak-metric-changed and link-flap). The Run holds the last cycle's measurements whole and
// every cycle's summary here.
namespace linkscope::model {

struct SoakCycle {
  int index = 0;
  double start_s = 0;  // since the soak began
  double seconds = 0;  // the cycle's wall time
  // Bandwidths measured in the cycle, in bytes per second, by the Prometheus export's series name and labels
  // ("linkscope_p2p_bandwidth_bytes_per_second{gpu=\"0\",peer=\"1\",...}"): sizes where bandwidth is measured only.
  std::map<std::string, double> metrics;
  // Link facts read at the cycle's start ("GPU0 PCIe width" -> "16", "GPU0 active NVLinks" -> "18").
  std::map<std::string, std::string> states;
  // Link error counters read at the cycle's start, cumulative as the driver keeps them ("GPU0 NVLink 3 CRC flit
  // errors" -> 0): one that grew between two cycles is a link erroring while the machine runs.
  std::map<std::string, std::int64_t> counters;
  std::vector<std::string> findings;  // ids of the cycle's findings of severity warning or above
};

struct Soak {
  double requested_s = 0;  // --soak DURATION
  std::vector<SoakCycle> cycles;
  std::string ended;  // why it ended: "duration reached", "interrupted (SIGINT) during cycle 4"
};

nlohmann::json to_json(const Soak& soak);
Soak soak_from_json(const JsonReader& reader);

}  // namespace linkscope::model
