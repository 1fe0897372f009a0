// The communicator model as the Run's `graphs` and `tuning` (topo::prediction_view) and their JSON round trip.
#include <gtest/gtest.h>

#include "model/run.hpp"
#include "support/run_command.hpp"
#include "topo/communicator_model.hpp"
#include "topo/prediction_view.hpp"
#include "topo/topology_model.hpp"
#include "support/model_versions.hpp"

namespace linkscope::topo {
namespace {

model::Prediction h200x2_prediction(Environment env = Environment{}) {
  const auto model = load_topology_file(test::fixture("h200x2/nccl-topo-dump.xml"), env, test::nccl_2_28_9());
  return predict_topology(model, env);
}

TEST(TopoPredictionView, GraphsAsNcclPrintedThemOnTheH200Pair) {
  const model::Prediction p = h200x2_prediction();
  EXPECT_EQ(p.unavailable, "");
  EXPECT_EQ(p.n_ranks, 2);
  // The real NCCL 2.28.3 log: "24 coll channels"; "Pattern 4, crossNic 0, nChannels 12, bw 30.000000/30.000000,
  // type NVL/PIX, sameChannels 1" and "Pattern 1, ..., nChannels 12, bw 60.000000/60.000000, ..., sameChannels 0".
  EXPECT_EQ(p.coll_channels, 24);
  ASSERT_EQ(p.graphs.size(), 2u);
  const model::TopoGraph& ring = p.graphs[0];
  EXPECT_EQ(ring.graph, "ring");
  EXPECT_EQ(ring.pattern, 4);
  EXPECT_EQ(ring.n_channels, 12);
  EXPECT_DOUBLE_EQ(ring.bw_intra, 30.0);
  EXPECT_EQ(ring.type_intra, "NVL");
  EXPECT_EQ(ring.type_inter, "PIX");
  EXPECT_TRUE(ring.same_channels);
  EXPECT_FALSE(ring.cross_nic);
  ASSERT_EQ(ring.channels.size(), 12u);
  EXPECT_EQ(ring.channels[0], (std::vector<int>{0, 1}));
  const model::TopoGraph& tree = p.graphs[1];
  EXPECT_EQ(tree.pattern, 1);
  EXPECT_DOUBLE_EQ(tree.bw_intra, 60.0);
  EXPECT_FALSE(tree.same_channels);
}

TEST(TopoPredictionView, TuningForEveryCollectiveAndSize) {
  const model::Prediction p = h200x2_prediction();
  ASSERT_EQ(p.tuning.size(), 5u * prediction_sizes().size());
  const model::TuningChoice* big = p.choice("all_reduce", uint64_t{1} << 30);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->algorithm, "Ring");
  EXPECT_EQ(big->protocol, "Simple");
  EXPECT_EQ(big->channels, 24);
  ASSERT_TRUE(big->time_us && big->busbw_gbps && big->algbw_gbps);
  // 2 ranks: all_reduce busbw = algbw; bytes / time.
  EXPECT_NEAR(*big->algbw_gbps, (1u << 30) / (*big->time_us * 1e3), 1e-6 * *big->algbw_gbps);
  EXPECT_DOUBLE_EQ(*big->busbw_gbps, *big->algbw_gbps);
  const model::TuningChoice* gather = p.choice("all_gather", uint64_t{1} << 30);
  ASSERT_NE(gather, nullptr);
  EXPECT_NEAR(*gather->busbw_gbps, *gather->algbw_gbps / 2, 1e-9);
  EXPECT_EQ(p.choice("alltoall", 8), nullptr);
}

TEST(TopoPredictionView, EnvironmentChangesTheChoice) {
  Environment env;
  env.set("NCCL_PROTO", "LL");
  const model::Prediction p = h200x2_prediction(env);
  const model::TuningChoice* big = p.choice("all_reduce", uint64_t{1} << 30);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->protocol, "LL");
  Environment bad;
  bad.set("NCCL_ALGO", "NoSuchAlgo");
  const model::Prediction refused = h200x2_prediction(bad);
  EXPECT_NE(refused.unavailable, "");
  EXPECT_TRUE(refused.tuning.empty());
}

TEST(TopoPredictionView, RunDocumentRoundTrip) {
  model::Run run = model::make_run("topo", {"linkscope", "topo"});
  const auto topology = load_topology_file(test::fixture("h200x2/nccl-topo-dump.xml"), Environment{}, test::nccl_2_28_9());
  run.topology = topology_view(topology);
  run.topology.prediction = predict_topology(topology, Environment{});
  const nlohmann::json document = model::to_json(run);
  ASSERT_TRUE(document["model"].contains("graphs"));
  ASSERT_TRUE(document["model"].contains("tuning"));
  EXPECT_EQ(document["model"]["prediction"]["coll_channels"], 24);
  EXPECT_EQ(document["model"]["graphs"][0]["n_channels"], 12);
  const model::Run back = model::run_from_json(document, "run.json");
  const model::Prediction& p = back.topology.prediction;
  ASSERT_EQ(p.graphs.size(), 2u);
  EXPECT_EQ(p.graphs[0].channels, run.topology.prediction.graphs[0].channels);
  ASSERT_EQ(p.tuning.size(), run.topology.prediction.tuning.size());
  EXPECT_EQ(p.tuning[30].protocol, run.topology.prediction.tuning[30].protocol);
  EXPECT_EQ(model::to_json(back), document);
}

TEST(TopoPredictionView, ReaderToleratesOlderAndRefusesDamagedDocuments) {
  model::Run run = model::make_run("topo", {"linkscope", "topo"});
  const auto topology = load_topology_file(test::fixture("h200x2/nccl-topo-dump.xml"), Environment{}, test::nccl_2_28_9());
  run.topology = topology_view(topology);
  run.topology.prediction = predict_topology(topology, Environment{});
  nlohmann::json document = model::to_json(run);
  // A 1.2 document has no prediction: it reads as none.
  nlohmann::json older = document;
  older["model"].erase("graphs");
  older["model"].erase("tuning");
  older["model"].erase("prediction");
  EXPECT_TRUE(model::run_from_json(older, "old.json").topology.prediction.empty());
  // Fields a newer writer adds are kept.
  document["model"]["tuning"][0]["tuner_plugin"] = "x";
  EXPECT_EQ(model::to_json(model::run_from_json(document, "new.json"))["model"]["tuning"][0]["tuner_plugin"], "x");
  // A wrong type names the field.
  document["model"]["tuning"][0]["busbw_gbps"] = "fast";
  try {
    model::run_from_json(document, "bad.json");
    FAIL() << "a string busbw was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("busbw_gbps"), std::string::npos) << e.what();
  }
  document["model"]["tuning"][0]["busbw_gbps"] = 1.0;
  document["model"]["graphs"][0]["channels"] = nlohmann::json::array({nlohmann::json::array({"a"})});
  EXPECT_THROW(model::run_from_json(document, "bad.json"), std::exception);
}

TEST(TopoPredictionView, NoGpuMeansNoPredictionWithAReason) {
  CommunicatorModel comm;
  comm.unavailable = "the topology lists no GPU";
  const model::Prediction p = prediction_view(comm);
  EXPECT_EQ(p.unavailable, "the topology lists no GPU");
  EXPECT_TRUE(p.graphs.empty());
  EXPECT_TRUE(p.tuning.empty());
  EXPECT_FALSE(p.empty());
}

}  // namespace
}  // namespace linkscope::topo
