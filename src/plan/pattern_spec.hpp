#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "plan/pair_spec.hpp"

namespace linkscope::plan {

// A set of directed copies ("edges") that start together behind one gate.
struct PatternSpec {
  std::string name;
  std::vector<DirectedPair> edges;
};

// A preset turned into edges for the given devices, or skipped with the reason (too few GPUs).
struct PatternPlan {
  std::string name;
  int gpus_needed = 0;
  bool runnable = false;
  PatternSpec spec;          // valid when runnable
  std::string skip_reason;   // set when not runnable
};

// single, bidirectional, disjoint, ring, fan-in, fan-out, all-to-all (the order of `--preset all`).
const std::vector<std::string>& pattern_preset_names();

// Builds preset `name` over `devices` (in the order given; the first device is "0" of fan-in/fan-out).
// Throws UsageError for an unknown name.
//   single         d0>d1
//   bidirectional  d0>d1, d1>d0
//   disjoint       d0>d1, d2>d3, ...          pairs sharing no GPU; needs 4 (two pairs)
//   ring           d0>d1, d1>d2, ..., dn>d0   needs 3 (a 2-GPU ring is `bidirectional`)
//   fan-in         every other device > d0   needs 3 (with 2 it is `single`)
//   fan-out        d0 > every other device   needs 3
//   all-to-all     every ordered pair         needs 3 (with 2 it is `bidirectional`)
PatternPlan make_preset(std::string_view name, const std::vector<int>& devices);

// Presets from a comma list ("all" expands to every preset, in order). Throws UsageError for unknown names.
std::vector<PatternPlan> make_presets(std::string_view names, const std::vector<int>& devices);

// A user pattern from `--edges "0>1,2>3"` (syntax via parse_pairs; ranges are checked by the caller).
PatternSpec parse_edges_pattern(std::string_view text);

}  // namespace linkscope::plan
