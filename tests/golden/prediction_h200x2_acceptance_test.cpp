// Acceptance: NCCL 2.28.9's model of the 2 x H200 machine (tests/fixtures/h200x2/nccl-topo-dump.xml, dumped by NCCL
// 2.28.3 there) against what that machine's real NCCL 2.28.3 log says NCCL built (graphs, channels) and against
// the busbw nccl-tests 2.19.6 measured there (tests/fixtures/h200x2/nccl-tests-2.19.6/, the healthy run fixture).
#include <cstdio>
#include <sstream>

#include <gtest/gtest.h>

#include "diagnose/diagnose.hpp"
#include "model/run_file.hpp"
#include "report/prediction_report.hpp"
#include "report/report_data.hpp"
#include "runtime/nccl_log.hpp"
#include "support/run_command.hpp"
#include "topo/communicator_model.hpp"
#include "topo/prediction_view.hpp"
#include "topo/topology_model.hpp"
#include "support/model_versions.hpp"

namespace linkscope {
namespace {

constexpr std::uint64_t kMiB = 1024ull * 1024ull;

const topo::TopologyModel& h200x2() {
  static const auto model = topo::load_topology_file(test::fixture("h200x2/nccl-topo-dump.xml"), Environment{}, test::nccl_2_28_9());
  return model;
}

// Out-of-place (size, busbw) rows of one nccl-tests output: a test-only reader, every number from the file.
std::vector<std::pair<std::uint64_t, double>> nccl_tests_busbw(const std::string& name) {
  std::istringstream lines(test::read_text(test::fixture("h200x2/nccl-tests-2.19.6/" + name)));
  std::vector<std::pair<std::uint64_t, double>> rows;
  std::string line;
  while (std::getline(lines, line)) {
    unsigned long long size = 0, count = 0;
    char type[16] = {}, redop[16] = {};
    int root = 0;
    double time = 0, algbw = 0, busbw = 0;
    if (line.empty() || line[0] == '#') continue;
    if (std::sscanf(line.c_str(), "%llu %llu %15s %15s %d %lf %lf %lf", &size, &count, type, redop, &root, &time,
                    &algbw, &busbw) == 8 &&
        size > 0) {  // nccl-tests prints 0-byte rows below one element per rank
      rows.emplace_back(size, busbw);
    }
  }
  return rows;
}

TEST(PredictionH200x2Acceptance, GraphsAndChannelsAreWhatTheRealLogShows) {
  const auto comm = topo::model_communicator(h200x2(), topo::resolve_comm_params(Environment{}));
  const auto log = runtime::parse_nccl_log(test::read_text(test::fixture("h200x2/nccl-2.28.3-info.log")));
  ASSERT_EQ(log.graphs.size(), 2u);
  // "Pattern 4, crossNic 0, nChannels 12, bw 30.000000/30.000000, type NVL/PIX, sameChannels 1" (ring) and
  // "Pattern 1, crossNic 0, nChannels 12, bw 60.000000/60.000000, type NVL/PIX, sameChannels 0" (tree).
  for (const auto* graph : {&comm.ring, &comm.tree}) {
    const auto& seen = log.graphs[graph == &comm.ring ? 0 : 1];
    EXPECT_EQ(graph->pattern, seen.pattern);
    EXPECT_EQ(graph->n_channels, seen.channels);
    EXPECT_DOUBLE_EQ(graph->bw_intra, seen.bw_intra);
    EXPECT_DOUBLE_EQ(graph->bw_inter, seen.bw_inter);
    EXPECT_EQ(topo::path_type_name(graph->type_intra), seen.type_intra);
    EXPECT_EQ(topo::path_type_name(graph->type_inter), seen.type_inter);
  }
  // "24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer"
  EXPECT_EQ(log.coll_channels, comm.channels.coll_channels);
  EXPECT_EQ(log.p2p_channels, comm.channels.p2p_channels);
  EXPECT_EQ(log.p2p_channels_per_peer, comm.channels.p2p_channels_per_peer);
  EXPECT_EQ(log.nvls_channels, comm.channels.nvls_channels);
  // The log was taken without NCCL_DEBUG_SUBSYS=TUNING: it cannot say which algorithm each call used.
  EXPECT_TRUE(log.tuning.empty());
}

TEST(PredictionH200x2Acceptance, MeasuredBusbwAgainstThePrediction) {
  const auto prediction = topo::predict_topology(h200x2(), Environment{});
  const auto min_bytes = 16 * kMiB;  // prediction_compare_min_bytes
  for (const std::string op : {"all_reduce", "all_gather", "reduce_scatter", "broadcast"}) {
    double lowest = 1e9, highest = 0;
    int compared = 0;
    for (const auto& [size, busbw] : nccl_tests_busbw("ncclt-" + op + ".txt")) {
      const model::TuningChoice* predicted = prediction.choice(op, size);
      ASSERT_NE(predicted, nullptr) << op << " " << size;
      ASSERT_TRUE(predicted->busbw_gbps.has_value());
      if (size < min_bytes) {
        // Latency: the model's 7-8 us against 14-31 us measured; measured busbw stays below the prediction.
        EXPECT_LT(busbw, *predicted->busbw_gbps + 0.01) << op << " " << size;
        continue;
      }
      EXPECT_EQ(predicted->algorithm, "Ring") << op << " " << size;
      EXPECT_EQ(predicted->protocol, "Simple") << op << " " << size;
      EXPECT_EQ(predicted->channels, 24) << op << " " << size;
      const double share = busbw / *predicted->busbw_gbps;
      lowest = std::min(lowest, share);
      highest = std::max(highest, share);
      ++compared;
    }
    EXPECT_EQ(compared, 10) << op;  // 16 MiB .. 8 GiB
    // Healthy: every size from 16 MiB within 0.62 .. 1.03 of NCCL's own prediction (broadcast exceeds it by 2%).
    EXPECT_GE(lowest, 0.62) << op;
    EXPECT_LE(highest, 1.03) << op;
  }
  // The anchor sizes: all_reduce 1 GiB 326.40 measured vs 358.17 predicted; broadcast 8 GiB 367.50 vs 359.82.
  EXPECT_NEAR(*prediction.choice("all_reduce", 1024 * kMiB)->busbw_gbps, 358.17, 0.01);
  EXPECT_NEAR(*prediction.choice("broadcast", 8192 * kMiB)->busbw_gbps, 359.82, 0.01);
}

TEST(PredictionH200x2Acceptance, HealthyRunIsConfirmedAndReported) {
  model::Run run = model::read_run_file(test::fixture("runs/h200x2-healthy.json"));
  run.topology.prediction = topo::predict_topology(h200x2(), Environment{});
  run.hypotheses.clear();
  run.findings.clear();
  const auto result = diagnose::diagnose(run, true);
  for (const auto& f : result.findings) {
    EXPECT_NE(f.id, "busbw-below-prediction") << f.title;
    EXPECT_NE(f.id, "nccl-choice-differs") << f.title;
  }
  const model::Hypothesis* judged = nullptr;
  for (const auto& h : result.hypotheses) {
    if (h.id == "nccl-model-busbw") judged = &h;
  }
  ASSERT_NE(judged, nullptr);
  EXPECT_EQ(judged->verdict, model::Verdict::kConfirmed) << judged->evidence;
  EXPECT_EQ(judged->numbers["sizes"].size(), 40u);  // 4 ops x 16 MiB .. 8 GiB
  EXPECT_NE(judged->evidence.find("lowest: all_gather at 32 MiB"), std::string::npos) << judged->evidence;
  const report::ReportData data = report::collect_report_data(run);
  const auto table = report::prediction_table(data);
  // all_reduce and broadcast 8 B .. 8 GiB, all_gather and reduce_scatter 32 B .. 8 GiB (alltoall and sendrecv are
  // not tuned).
  EXPECT_EQ(table.rows.size(), 2u * 31u + 2u * 29u);
  const std::string text = report::prediction_text(data);
  EXPECT_NE(text.find("all_reduce"), std::string::npos);
  EXPECT_NE(text.find("Ring/Simple on 24 channels"), std::string::npos);
  EXPECT_FALSE(report::prediction_svg(data).empty());
}

}  // namespace
}  // namespace linkscope
