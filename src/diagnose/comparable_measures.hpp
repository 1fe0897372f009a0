#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "model/run.hpp"

// The comparable numbers of a run, one home for `compare` (two runs) and the fleet baseline (many hosts): copy
// bandwidths and times, latencies, host copies, collectives, patterns and ladder layers, each with an identity that
// is equal in two runs when the number measures the same thing.
namespace linkscope::diagnose {

struct Measure {
  double value = 0;
  std::string unit;
  bool higher_is_better = true;
  std::optional<double> noise;  // relative
  std::string category;         // "p2p", "latency", "host", "collective", "pattern", "ladder"
  std::string what;             // "ce write GPU0->GPU1 at 512 MiB"
  // The fleet's view: what is measured without naming the GPU or pair ("ce write NV18 at 512 MiB", the pair class
  // from the topology matrix), and the subject it was measured on ("GPU0->GPU1", "GPU2"; empty: the whole host).
  std::string kind, subject;
};

using MeasureMap = std::map<std::string, Measure>;  // key ("p2p|ce write GPU0->GPU1 at 512 MiB") -> measure

MeasureMap comparable_measures(const model::Run& run);

// Points up to this size are latency-bound: their time is compared, not their bandwidth.
std::uint64_t latency_bound_bytes();

}  // namespace linkscope::diagnose
