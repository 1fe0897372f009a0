#include "report/pattern_text.hpp"

#include <gtest/gtest.h>

#include "p2p_golden_support.hpp"
#include "plan/pattern_spec.hpp"

namespace linkscope {
namespace {

model::PatternResult pattern(const std::string& name, std::vector<plan::DirectedPair> edges, double aggregate,
                            std::optional<int> node) {
  model::PatternResult r;
  r.name = name;
  r.method = "ce";
  r.bytes = 256 << 20;
  r.cpu_node = node;
  r.aggregate_gbps = model::Stat3{aggregate, aggregate * 0.998, aggregate * 1.001};
  r.samples = 7;
  r.ops_per_sample = 1;
  r.cv = 0.0012;
  for (const auto& e : edges) {
    model::EdgeResult edge;
    edge.src = e.src;
    edge.dst = e.dst;
    const double each = aggregate / static_cast<double>(edges.size());
    edge.bandwidth_gbps = model::Stat3{each, each * 0.99, each * 1.01};
    edge.alone_gbps = 393.8;
    r.edges.push_back(edge);
  }
  model::compute_scaling(r);
  return r;
}

// The golden text, and the same text from the saved run of the `linkscope patterns` that measured `patterns`.
void expect_patterns_text(const std::string& golden, const model::PatternRun& patterns) {
  model::Run run = model::make_run("patterns", {"linkscope", "patterns"});
  run.measurements.patterns = patterns;
  test::expect_p2p_golden_and_report(golden, run, report::render_patterns_text(patterns));
}

model::PatternRun base_run() {
  model::PatternRun run;
  run.config = {{"bytes", 256 << 20}, {"method", "ce"}, {"sm_kernel", nullptr}, {"verify", true}};
  run.devices = {{0, "NVIDIA H200", "00000000:00:06.0", "GPU-6", 132, "9.0"},
                 {1, "NVIDIA H200", "00000000:00:07.0", "GPU-7", 132, "9.0"}};
  return run;
}

TEST(P2pPatternsTextGolden, TwoGpusWithSkippedPresets) {
  model::PatternRun run = base_run();
  run.patterns.push_back(pattern("single", {{0, 1}}, 393.1, std::nullopt));
  run.patterns.push_back(pattern("bidirectional", {{0, 1}, {1, 0}}, 778.4, std::nullopt));
  for (const auto& preset : plan::make_presets("disjoint,ring", plan::first_devices(2))) {
    model::PatternResult skipped;
    skipped.name = preset.name;
    skipped.status = model::PointStatus::kNa;
    skipped.reason = preset.skip_reason;
    run.patterns.push_back(skipped);
  }
  expect_patterns_text("patterns_two_gpus.txt", run);
}

TEST(P2pPatternsTextGolden, NumaSweepOverTwoNodes) {
  model::PatternRun run = base_run();
  run.patterns = {pattern("single", {{0, 1}}, 393.1, 0), pattern("bidirectional", {{0, 1}, {1, 0}}, 778.4, 0),
                  pattern("single", {{0, 1}}, 392.9, 1), pattern("bidirectional", {{0, 1}, {1, 0}}, 760.0, 1)};
  run.numa = model::summarize_numa_sweep({0, 1}, run.patterns);
  expect_patterns_text("patterns_numa.txt", run);
}

}  // namespace
}  // namespace linkscope
