#pragma once
#include <cstdint>
#include <optional>

#include "model/run.hpp"

// How `linkscope coll` sampled each size, as its text table's header states it. Stored in the Run under
// config.coll ({"fixed_iters", "graph_launches", "target_ci", "max_time_s"}, next to the command's other settings),
// so `linkscope report run.json --format text` prints the same header as the live command. A coll run's wall
// time, which its table's footer states, is config.measured_seconds.
namespace linkscope::model {

struct CollSampling {
  std::optional<std::uint64_t> fixed_iters;  // a fixed count of timed iterations (-n, nccl-tests' personality)
  int graph_launches = 0;                    // -G: CUDA graph launches per sample
  double target_ci = 0;                      // adaptive: the median's relative 95% CI to reach
  double max_time_s = 0;                     // adaptive: the time budget per size
};

// Reads config.coll; a field it lacks (or holds with another type) keeps its default.
CollSampling coll_sampling(const Config& config);
// Writes the fields into config.coll, keeping the other settings there.
void put_coll_sampling(Config& config, const CollSampling& sampling);

}  // namespace linkscope::model
