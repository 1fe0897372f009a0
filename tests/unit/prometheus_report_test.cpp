// The Prometheus textfile of saved runs (tests/fixtures/runs): base units, labels from the run, every rule and
// severity as a 0/1 gauge, families whole and unique; the exposition writer's escaping and duplicate handling.
// tests/cli/report_prometheus_cli_test.cpp runs promtool on the same output.
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "diagnose/diagnose.hpp"
#include "diagnose/rules.hpp"
#include "model/run_file.hpp"
#include "report/prometheus_exposition.hpp"
#include "report/prometheus_report.hpp"
#include "support/run_command.hpp"
#include "unit/cluster_test_runs.hpp"
#include "unit/isolation_test_runs.hpp"

namespace linkscope::report {
namespace {

model::Run diagnosed(const std::string& name) {
  model::Run run = model::read_run_file(test::fixture("runs/" + name));
  diagnose::diagnose_into(run);
  return run;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The value of the sample whose name and labels are exactly `series`; NaN when there is none.
double sample(const std::string& text, const std::string& series) {
  for (const auto& line : lines_of(text)) {
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  }
  ADD_FAILURE() << "no sample " << series;
  return std::nan("");
}

std::string labels(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string out = "{";
  for (const auto& [name, value] : pairs) out += (out.size() > 1 ? "," : "") + name + "=\"" + value + "\"";
  return out + "}";
}

TEST(PrometheusExposition, EscapesLabelValuesAndHelpAsTheFormatSays) {
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(escape_help("a\\b\"c\nd"), "a\\\\b\"c\\nd");
  // Prometheus refuses a label value that is not UTF-8; an escape sequence must not reach a terminal.
  EXPECT_EQ(escape_label_value("gpu\xff\x1b[2J"), "gpu\\\\xff\\\\x1b[2J");
  EXPECT_EQ(escape_label_value("H200 \u00e9"), "H200 \u00e9");
  MetricFamily family;
  family.name = "linkscope_x";
  family.type = "gauge";
  family.help = "two\nlines";
  family.labels = {"host"};
  family.add({"node \"7\"\n"}, 1.5);
  EXPECT_EQ(render_exposition({family}),
            "# HELP linkscope_x two\\nlines\n# TYPE linkscope_x gauge\nlinkscope_x{host=\"node \\\"7\\\"\\n\"} 1.5\n");
}

TEST(PrometheusExposition, KeepsOneSamplePerLabelSetLeavesNonFiniteValuesAndEmptyFamiliesOut) {
  MetricFamily largest;
  largest.name = "linkscope_a";
  largest.type = "gauge";
  largest.labels = {"size"};
  largest.duplicates = DuplicateSamples::kKeepLargest;
  largest.add({"1"}, 2);
  largest.add({"1"}, 3);
  largest.add({"1"}, 1);
  largest.add({"2"}, std::nan(""));
  largest.add({"3"}, INFINITY);
  MetricFamily smallest = largest;
  smallest.name = "linkscope_b";
  smallest.duplicates = DuplicateSamples::kKeepSmallest;
  smallest.add({"1"}, 0.5);
  MetricFamily empty;
  empty.name = "linkscope_empty";
  empty.type = "gauge";
  const std::string text = render_exposition({largest, smallest, empty});
  EXPECT_EQ(text, "# HELP linkscope_a \n# TYPE linkscope_a gauge\nlinkscope_a{size=\"1\"} 3\n"
                  "# HELP linkscope_b \n# TYPE linkscope_b gauge\nlinkscope_b{size=\"1\"} 0.5\n");
  EXPECT_THROW(largest.add({"1", "extra"}, 1), Error);
}

// Every family once, HELP then TYPE then its samples, every sample of a known family with the family's labels, and
// no two samples with the same name and labels: what node-exporter's textfile collector requires.
TEST(PrometheusReport, FamiliesAreWholeAndEverySeriesIsUnique) {
  for (const char* name : {"h200x2-healthy.json", "h200x2-busy-gpu1.json", "hgx-h200-8gpu-synthetic-gpu5-slow.json",
                           "hgx-h200-8gpu-model.json", "h200x2-nccl-p2p-disable.json"}) {
    const std::string text = render_prometheus(diagnosed(name));
    std::set<std::string> families, series;
    std::string current;
    std::size_t samples = 0;
    for (const auto& line : lines_of(text)) {
      if (line.rfind("# HELP ", 0) == 0) {
        current = line.substr(7, line.find(' ', 7) - 7);
        EXPECT_TRUE(families.insert(current).second) << name << ": " << current << " twice";
        EXPECT_EQ(current.rfind("linkscope_", 0), 0u) << line;
      } else if (line.rfind("# TYPE ", 0) == 0) {
        EXPECT_EQ(line, "# TYPE " + current + " gauge");
      } else {
        ++samples;
        EXPECT_EQ(line.rfind(current, 0), 0u) << name << ": " << line << " outside its family " << current;
        EXPECT_TRUE(series.insert(line.substr(0, line.rfind(' '))).second) << name << ": " << line;
      }
    }
    EXPECT_GT(samples, diagnose::all_rules().size() * 3) << name;
    EXPECT_EQ(text.back(), '\n');
  }
}

TEST(PrometheusReport, CopiesAndLatencyAreInBytesPerSecondAndSecondsWithTheGpusBusIds) {
  const model::Run run = diagnosed("h200x2-healthy.json");
  const std::string text = render_prometheus(run);
  const model::P2pResults& p2p = *run.measurements.p2p;
  const model::CopyPoint& largest = p2p.points.back();
  ASSERT_TRUE(largest.bandwidth_gbps);
  const std::string bus = run.system.gpu_by_cuda_ordinal(largest.src)->pci_bdf;
  EXPECT_FALSE(bus.empty());
  EXPECT_DOUBLE_EQ(sample(text, "linkscope_p2p_bandwidth_bytes_per_second" +
                                    labels({{"host", run.config.host},
                                            {"gpu", std::to_string(largest.src)},
                                            {"pci_bus_id", bus},
                                            {"peer", std::to_string(largest.dst)},
                                            {"method", largest.method},
                                            {"initiator", largest.initiator},
                                            {"direction", largest.direction},
                                            {"size", std::to_string(largest.bytes)}})),
                   largest.bandwidth_gbps->median * 1e9);
  const model::LatencyPoint& chase = p2p.latency.front();
  EXPECT_DOUBLE_EQ(sample(text, "linkscope_p2p_latency_seconds" +
                                    labels({{"host", run.config.host},
                                            {"gpu", std::to_string(chase.src)},
                                            {"pci_bus_id", run.system.gpu_by_cuda_ordinal(chase.src)->pci_bdf},
                                            {"peer", std::to_string(chase.dst)},
                                            {"method", chase.method},
                                            {"size", std::to_string(chase.bytes)}})),
                   chase.latency_ns->median * 1e-9);
}

TEST(PrometheusReport, CollectivesCarryOpSizeAndNcclVersion) {
  const model::Run run = diagnosed("h200x2-healthy.json");
  const std::string text = render_prometheus(run);
  ASSERT_TRUE(run.environment.nccl_version);
  int checked = 0;
  for (const auto& series : *run.measurements.collectives) {
    const model::CollectivePoint* point = model::largest_measured_point(series);
    ASSERT_NE(point, nullptr);
    const std::string series_labels = labels({{"host", run.config.host},
                                              {"op", std::string(coll::op_name(series.op))},
                                              {"dtype", std::string(coll::type_name(series.dtype))},
                                              {"redop", coll::op_reduces(series.op)
                                                            ? std::string(coll::red_op_name(series.redop))
                                                            : ""},
                                              {"root", coll::op_is_rooted(series.op) ? std::to_string(series.root)
                                                                                     : ""},
                                              {"ranks", std::to_string(series.nranks)},
                                              {"placement", point->in_place ? "in_place" : "out_of_place"},
                                              {"size", std::to_string(point->bytes)},
                                              {"nccl_version", *run.environment.nccl_version}});
    EXPECT_DOUBLE_EQ(sample(text, "linkscope_collective_bus_bandwidth_bytes_per_second" + series_labels),
                     *point->busbw_gbps * 1e9);
    EXPECT_DOUBLE_EQ(sample(text, "linkscope_collective_algorithm_bandwidth_bytes_per_second" + series_labels),
                     *point->algbw_gbps * 1e9);
    EXPECT_DOUBLE_EQ(sample(text, "linkscope_collective_time_seconds" + series_labels), point->time->median_us * 1e-6);
    ++checked;
  }
  EXPECT_EQ(checked, 6);
}

// nccl-tests' -o all (and -d all, -r all): each reduction its own series, none dropped as a duplicate.
TEST(PrometheusReport, SeriesOfOneOpWithOtherReductionsStayApart) {
  model::Run run = diagnosed("h200x2-healthy.json");
  model::CollectiveSeries max = run.measurements.collectives->front();
  ASSERT_EQ(max.op, coll::CollectiveOp::kAllReduce);
  max.redop = coll::RedOp::kMax;
  for (auto& point : max.points) {
    if (point.busbw_gbps) *point.busbw_gbps /= 2;
  }
  run.measurements.collectives->push_back(max);
  const std::string text = render_prometheus(run);
  const model::CollectivePoint* point = model::largest_measured_point(max);
  const auto series = [&](const std::string& redop) {
    return "linkscope_collective_bus_bandwidth_bytes_per_second" +
           labels({{"host", run.config.host}, {"op", "all_reduce"}, {"dtype", "float"}, {"redop", redop},
                   {"root", ""}, {"ranks", std::to_string(max.nranks)},
                   {"placement", point->in_place ? "in_place" : "out_of_place"},
                   {"size", std::to_string(point->bytes)}, {"nccl_version", *run.environment.nccl_version}});
  };
  EXPECT_DOUBLE_EQ(sample(text, series("max")), *point->busbw_gbps * 1e9);
  EXPECT_DOUBLE_EQ(sample(text, series("sum")), *point->busbw_gbps * 2 * 1e9);
}

// Every rule of diagnose/rules.cpp at every severity, 1 exactly where the run has that finding.
TEST(PrometheusReport, OneFindingGaugePerRuleAndSeverity) {
  const model::Run run = diagnosed("hgx-h200-8gpu-synthetic-gpu5-slow.json");
  ASSERT_FALSE(run.findings.empty());
  const std::string text = render_prometheus(run);
  std::set<std::pair<std::string, std::string>> found;
  for (const auto& finding : run.findings) {
    found.emplace(finding.id, std::string(model::severity_name(finding.severity)));
  }
  for (const auto& rule : diagnose::all_rules()) {
    for (const std::string severity : {"info", "warning", "error"}) {
      const double expected = found.count({std::string(rule.id), severity}) != 0 ? 1 : 0;
      EXPECT_EQ(sample(text, "linkscope_finding" + labels({{"host", run.config.host},
                                                           {"rule", std::string(rule.id)},
                                                           {"severity", severity}})),
                expected)
          << rule.id << " " << severity;
    }
  }
}

TEST(PrometheusReport, ARunOfANewerLinkscopeKeepsItsUnknownRuleAndEscapesTheHostName) {
  model::Run run = diagnosed("h200x2-healthy.json");
  run.config.host = "rack\"1\"\\n";
  model::Finding newer;
  newer.id = "some-future-rule";
  newer.severity = model::Severity::kWarning;
  run.findings.push_back(newer);
  const std::string text = render_prometheus(run);
  const std::string host = "host=\"rack\\\"1\\\"\\\\n\"";  // rack\"1\"\\n
  EXPECT_EQ(sample(text, "linkscope_finding{" + host + ",rule=\"some-future-rule\",severity=\"warning\"}"), 1);
  EXPECT_EQ(sample(text, "linkscope_check_status{" + host + "}"), 1);  // WARNING
}

TEST(PrometheusReport, RunStateStartTimeAndCompletion) {
  model::Run run = diagnosed("h200x2-healthy.json");
  run.config.started_at = "1970-01-02T00:00:01Z";
  const std::string host = labels({{"host", run.config.host}});
  EXPECT_EQ(sample(render_prometheus(run), "linkscope_run_start_time_seconds" + host), 86401);
  EXPECT_EQ(sample(render_prometheus(run), "linkscope_run_complete" + host), 1);
  run.config.stopped = "interrupted (SIGINT) during p2p, 1 of 9 steps done";
  EXPECT_EQ(sample(render_prometheus(run), "linkscope_run_complete" + host), 0);
}

// A cluster's run: every pair of hosts in bytes per second, every host's GPUs under its own name, the cluster's
// findings under rank 0's host.
TEST(PrometheusReport, AClusterRunHasItsHostPairsAndEveryHostsGpus) {
  const model::Run run = test::cluster_run();
  const std::string text = render_prometheus(run);
  const model::CrossHost& cross = *run.measurements.cross_host;
  ASSERT_EQ(cross.pairs.size(), 3u);
  for (const auto& pair : cross.pairs) {
    ASSERT_TRUE(pair.bandwidth_gbps);
    EXPECT_DOUBLE_EQ(sample(text, "linkscope_cross_host_bandwidth_bytes_per_second" +
                                      labels({{"host", cross.hosts[pair.a.host]},
                                              {"peer", cross.hosts[pair.b.host]},
                                              {"size", std::to_string(pair.bytes)}})),
                     *pair.bandwidth_gbps * 1e9);
  }
  for (const auto& host : run.system.hosts) {
    ASSERT_TRUE(host.system);
    const model::Gpu& gpu = host.system->gpus.front();
    EXPECT_EQ(sample(text, "linkscope_gpu_info" + labels({{"host", host.name},
                                                          {"gpu", std::to_string(*gpu.cuda_ordinal)},
                                                          {"pci_bus_id", gpu.pci_bdf},
                                                          {"uuid", gpu.uuid},
                                                          {"name", gpu.name}})),
              1);
  }
  for (const auto& finding : run.findings) {
    EXPECT_EQ(sample(text, "linkscope_finding" +
                               labels({{"host", run.config.host},
                                       {"rule", finding.id},
                                       {"severity", std::string(model::severity_name(finding.severity))}})),
              1);
  }
}

// `cluster --isolate`: the every-host all_reduce and each host's verdict under its own name, so an alert can name
// the slow host; the all_reduce over every rank of a pairs run too.
TEST(PrometheusReport, AnIsolationNamesEachHostsVerdict) {
  model::Run run = test::cluster_run();
  run.measurements.cross_host = test::isolated_cross_host(5, -1);
  const std::string text = render_prometheus(run);
  EXPECT_DOUBLE_EQ(sample(text, "linkscope_isolation_every_host_bus_bandwidth_bytes_per_second" +
                                    labels({{"host", "node-a"}, {"size", std::to_string(16 << 20)}})),
                   12.5e9);
  for (int h = 0; h < 8; ++h) {
    const std::string verdict = h == 5 ? "slow" : "good";
    EXPECT_EQ(sample(text, "linkscope_isolation_host_verdict" + labels({{"host", "h" + std::to_string(h)},
                                                                       {"verdict", verdict}})),
              1);
  }
  EXPECT_EQ(text.find("linkscope_isolation_host_verdict{host=\"h5\",verdict=\"good\"}"), std::string::npos);
}

TEST(PrometheusReport, TheAllReduceOverEveryRankIsExported) {
  model::Run run = test::cluster_run();
  model::CrossHost& cross = *run.measurements.cross_host;
  cross.all_reduce = test::measured_series(coll::CollectiveOp::kAllReduce, 6, 40.0);
  cross.all_reduce_status = "ok";
  const auto* point = model::largest_measured_point(*cross.all_reduce);
  ASSERT_TRUE(point && point->busbw_gbps);
  const std::string text = render_prometheus(run);
  EXPECT_DOUBLE_EQ(sample(text, "linkscope_cross_host_all_reduce_bus_bandwidth_bytes_per_second" +
                                    labels({{"host", "node-a"}, {"size", std::to_string(point->bytes)}})),
                   *point->busbw_gbps * 1e9);
}

}  // namespace
}  // namespace linkscope::report
