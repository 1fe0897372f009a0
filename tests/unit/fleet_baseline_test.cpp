// Fleet baselines: robust statistics, the machine-type key, the baseline built from many hosts' runs and a run
// judged against it. Fleets are SYNTHETIC: real saved runs copied as other hosts with their numbers scaled.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/statistics.hpp"
#include "diagnose/diagnose.hpp"
#include "fleet/baseline.hpp"
#include "fleet/fleet_judge.hpp"
#include "fleet/machine_type.hpp"
#include "model/run_file.hpp"
#include "report/fleet_section.hpp"
#include "support/run_command.hpp"
#include "support/synthetic_fleet.hpp"
#include "unit/isolation_test_runs.hpp"

namespace linkscope::fleet {
namespace {

nlohmann::json fixture_document(const std::string& relative) {
  return nlohmann::json::parse(test::read_text(test::fixture(relative)));
}

model::Run as_run(const nlohmann::json& document) { return model::parse_run_text(document.dump(), "synthetic"); }

// Eight hosts of the 2 x H200 run within +-2% of each other (SYNTHETIC).
std::vector<std::pair<std::string, model::Run>> h200_fleet() {
  const nlohmann::json healthy = fixture_document("runs/h200x2-healthy.json");
  std::vector<std::pair<std::string, model::Run>> runs;
  const double factors[] = {0.98, 0.99, 1.0, 1.0, 1.005, 1.01, 1.02, 0.995};
  for (int i = 0; i < 8; ++i) {
    const std::string host = "node-" + std::to_string(i);
    runs.emplace_back(host + ".json", as_run(test::synthetic_host(healthy, host, factors[i])));
  }
  return runs;
}

TEST(RobustStatistics, MedianMadAndPercentilesIgnoreOneWildValue) {
  const RobustSummary s = robust_summarize({3, 1, 2, 100, 4});
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mad, 1);  // deviations 2, 1, 0, 97, 1
  EXPECT_DOUBLE_EQ(s.p05, 1.2);
  EXPECT_DOUBLE_EQ(s.p95, 80.8);
  EXPECT_NEAR(*robust_z(100, s.median, s.mad), 97 / 1.4826, 1e-9);
  EXPECT_FALSE(robust_z(5, 3, 0).has_value());
  EXPECT_THROW(robust_summarize({}), std::invalid_argument);
}

TEST(MachineType, NamesGpusLinksAndNccl) {
  const model::Run run = model::read_run_file(test::fixture("runs/h200x2-healthy.json"));
  const std::string type = machine_type(run);
  EXPECT_EQ(type.rfind("2 x NVIDIA H200", 0), 0u) << type;
  EXPECT_NE(type.find("2 x NVLink 18 @"), std::string::npos) << type;
  EXPECT_NE(type.find("| NCCL 2.28.3"), std::string::npos) << type;
}

TEST(MachineType, ALinkDownKeepsTheTypeAnotherNcclChangesIt) {
  const model::Run run = model::read_run_file(test::fixture("runs/h200x2-healthy.json"));
  model::Run down = run;
  auto links = down.system.gpus[0].nvlinks.value();
  links[3].active = false;
  down.system.gpus[0].nvlinks = links;
  EXPECT_EQ(machine_type(down), machine_type(run));
  model::Run other = run;
  other.environment.nccl_version = "2.29.1";
  EXPECT_NE(machine_type(other), machine_type(run));
  model::Run fewer = run;
  links.pop_back();
  fewer.system.gpus[0].nvlinks = links;
  EXPECT_NE(machine_type(fewer), machine_type(run));
}

TEST(Baseline, GroupsByMachineTypeAndPoolsPairsOfOneClass) {
  auto runs = h200_fleet();
  // An 8-GPU machine joins the fleet as a type of its own.
  runs.emplace_back("hgx.json", model::read_run_file(test::fixture("runs/hgx-h200-8gpu-synthetic.json")));
  const Baseline baseline = build_baseline(runs);
  ASSERT_EQ(baseline.types.size(), 2u);
  const TypeBaseline& h200 = baseline.types.at(machine_type(runs[0].second));
  EXPECT_EQ(h200.runs, 8);
  EXPECT_EQ(h200.hosts.size(), 8u);
  // Both directions of the NV18 pair pool into one metric: 2 values per host.
  const model::Run& first = runs[0].second;
  const auto samples = fleet_samples(first);
  ASSERT_FALSE(samples.empty());
  int same_kind = 0;
  for (const auto& s : samples) same_kind += s.key() == samples.front().key();
  const BaselineMetric& metric = h200.metrics.at(samples.front().key());
  EXPECT_EQ(metric.spread.count, 8 * same_kind);
  // The median of hosts scaled 0.98 ... 1.02 is the run's own value (factors 1.0 and 1.0 in the middle).
  const model::Run reference = model::read_run_file(test::fixture("runs/h200x2-healthy.json"));
  double own = 0;
  for (const auto& s : fleet_samples(reference)) {
    if (s.key() == samples.front().key()) own = s.value;
  }
  if (same_kind == 1) {
    EXPECT_NEAR(metric.spread.median, own, 1e-9 * own);
  }
  EXPECT_GT(metric.spread.mad, 0);
  EXPECT_LE(metric.spread.p5, metric.spread.median);
  EXPECT_GE(metric.spread.p95, metric.spread.median);
}

TEST(Baseline, RoundTripsThroughItsJson) {
  const Baseline baseline = build_baseline(h200_fleet());
  const nlohmann::json document = baseline_to_json(baseline);
  EXPECT_EQ(document.at("format"), kBaselineFormat);
  EXPECT_EQ(document.at("version"), kBaselineVersion);
  const Baseline again = baseline_from_json(document, "baseline.json");
  ASSERT_EQ(again.types.size(), baseline.types.size());
  const auto& a = baseline.types.begin()->second;
  const auto& b = again.types.begin()->second;
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  for (const auto& [key, metric] : a.metrics) {
    EXPECT_DOUBLE_EQ(b.metrics.at(key).spread.median, metric.spread.median) << key;
    EXPECT_DOUBLE_EQ(b.metrics.at(key).spread.mad, metric.spread.mad) << key;
    EXPECT_EQ(b.metrics.at(key).spread.count, metric.spread.count) << key;
  }
}

TEST(Baseline, RefusesNoRunsARunWithoutGpusAndAFileThatIsNoBaseline) {
  EXPECT_THROW(build_baseline({}), UsageError);
  model::Run empty;
  EXPECT_THROW(build_baseline({{"empty.json", empty}}), InputError);
  // A cluster's run whose rank 0 saw no GPU still holds the numbers between its hosts, under a "no GPU" type.
  model::Run between_hosts;
  between_hosts.measurements.cross_host = test::isolated_cross_host(-1, -1, 48);
  const Baseline network = build_baseline({{"cluster.json", between_hosts}});
  ASSERT_EQ(network.types.size(), 1u);
  EXPECT_EQ(network.types.begin()->first.rfind("no GPU | NCCL", 0), 0u) << network.types.begin()->first;
  EXPECT_EQ(network.types.begin()->second.metrics.size(), 1u);
  const nlohmann::json run = fixture_document("runs/h200x2-healthy.json");
  EXPECT_THROW(baseline_from_json(run, "run.json"), InputError);
  nlohmann::json wrong = baseline_to_json(build_baseline(h200_fleet()));
  wrong["types"][0]["metrics"][0]["median"] = "fast";
  EXPECT_THROW(baseline_from_json(wrong, "wrong.json"), InputError);
  nlohmann::json newer = baseline_to_json(build_baseline(h200_fleet()));
  newer["version"] = kBaselineVersion + 1;
  EXPECT_THROW(baseline_from_json(newer, "newer.json"), InputError);
}

TEST(FleetJudge, AHealthyHostIsWithinASlowHostIsOutsideWithItsNumbers) {
  const Baseline baseline = build_baseline(h200_fleet());
  const nlohmann::json healthy = fixture_document("runs/h200x2-healthy.json");
  const model::FleetComparison within =
      judge_against_baseline(as_run(test::synthetic_host(healthy, "node-9", 1.005)), baseline, "baseline.json");
  EXPECT_TRUE(within.type_in_baseline);
  EXPECT_FALSE(within.metrics.empty());
  EXPECT_EQ(within.outside_count(), 0);
  EXPECT_EQ(within.not_in_baseline, 0);

  // 30% slower everywhere: every copy bandwidth is worse beyond both thresholds.
  model::Run slow = as_run(test::synthetic_host(healthy, "node-slow", 0.7));
  const model::FleetComparison judged = judge_against_baseline(slow, baseline, "baseline.json");
  int copies = 0;
  for (const auto& m : judged.metrics) {
    if (m.category != "p2p" || m.unit != "GB/s") continue;
    ++copies;
    EXPECT_TRUE(m.outside) << m.subject << " " << m.metric;
    EXPECT_NEAR(m.relative, -0.3, 0.03) << m.metric;
    if (m.robust_z) {
      EXPECT_LT(*m.robust_z, -3.5) << m.metric;
    }
  }
  EXPECT_GT(copies, 0);

  // 30% faster is never outside: the fleet flags only what is worse.
  const model::FleetComparison fast =
      judge_against_baseline(as_run(test::synthetic_host(healthy, "node-fast", 1.3)), baseline, "baseline.json");
  EXPECT_EQ(fast.outside_count(), 0);

  // The finding names the host, the metric and the fleet's median.
  slow.fleet = judged;
  diagnose::diagnose_into(slow, false);
  const auto found = std::find_if(slow.findings.begin(), slow.findings.end(),
                                  [](const model::Finding& f) { return f.id == "outside-fleet-baseline"; });
  ASSERT_NE(found, slow.findings.end());
  EXPECT_EQ(found->severity, model::Severity::kWarning);
  EXPECT_NE(found->title.find("node-slow"), std::string::npos) << found->title;
  EXPECT_NE(found->evidence.front().find("fleet median"), std::string::npos) << found->evidence.front();
}

// Both thresholds must be crossed: 12% worse in a fleet whose hosts spread by +-20% is within (robust z small).
TEST(FleetJudge, ANoisyFleetNeedsTheRobustZToo) {
  const nlohmann::json healthy = fixture_document("runs/h200x2-healthy.json");
  std::vector<std::pair<std::string, model::Run>> runs;
  const double factors[] = {0.8, 0.85, 0.9, 1.0, 1.0, 1.1, 1.15, 1.2};
  for (int i = 0; i < 8; ++i) {
    runs.emplace_back("n.json", as_run(test::synthetic_host(healthy, "noisy-" + std::to_string(i), factors[i])));
  }
  const Baseline baseline = build_baseline(runs);
  const auto judged =
      judge_against_baseline(as_run(test::synthetic_host(healthy, "x", 0.88)), baseline, "baseline.json");
  EXPECT_FALSE(judged.metrics.empty());
  EXPECT_EQ(judged.outside_count(), 0);
}

TEST(FleetJudge, AMachineTypeNotInTheBaselineIsSaidNeverPassedSilently) {
  const Baseline baseline = build_baseline(h200_fleet());
  model::Run hgx = model::read_run_file(test::fixture("runs/hgx-h200-8gpu-synthetic.json"));
  hgx.fleet = judge_against_baseline(hgx, baseline, "baseline.json");
  EXPECT_FALSE(hgx.fleet->type_in_baseline);
  EXPECT_TRUE(hgx.fleet->metrics.empty());
  diagnose::diagnose_into(hgx, false);
  const auto found = std::find_if(hgx.findings.begin(), hgx.findings.end(),
                                  [](const model::Finding& f) { return f.id == "outside-fleet-baseline"; });
  ASSERT_NE(found, hgx.findings.end());
  EXPECT_EQ(found->severity, model::Severity::kInfo);
  EXPECT_NE(found->title.find("not in the baseline"), std::string::npos);
}

TEST(FleetJudge, TheRunKeepsItsFleetSectionAndTheReportDrawsIt) {
  const Baseline baseline = build_baseline(h200_fleet());
  model::Run slow = as_run(test::synthetic_host(fixture_document("runs/h200x2-healthy.json"), "node-slow", 0.7));
  slow.fleet = judge_against_baseline(slow, baseline, "baseline.json");
  const model::Run again = model::parse_run_text(model::run_text(slow), "again");
  ASSERT_TRUE(again.fleet.has_value());
  EXPECT_EQ(again.fleet->metrics.size(), slow.fleet->metrics.size());
  EXPECT_EQ(again.fleet->outside_count(), slow.fleet->outside_count());
  EXPECT_EQ(again.fleet->machine_type, slow.fleet->machine_type);
  const std::string svg = report::fleet_svg(*again.fleet);
  EXPECT_NE(svg.find("<circle"), std::string::npos);
  EXPECT_NE(svg.find("#d55e00"), std::string::npos);  // an outside dot
  EXPECT_FALSE(report::fleet_table(*again.fleet).empty());
  EXPECT_NE(report::render_fleet_text(*again.fleet).find("outside the fleet"), std::string::npos);
}

}  // namespace
}  // namespace linkscope::fleet
