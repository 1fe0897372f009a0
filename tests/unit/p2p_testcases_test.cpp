// nvbandwidth testcases in the typed Run (measurements.p2p.testcases) and in nvbandwidth's text layout.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "model/p2p.hpp"
#include "report/nvbandwidth_text.hpp"
#include "report/p2p_text.hpp"

namespace linkscope::model {
namespace {

// Two GPUs, device_to_device_memcpy_read_ce: the diagonal is N/A.
TestcaseResult two_gpu_read() {
  TestcaseResult t;
  t.name = "device_to_device_memcpy_read_ce";
  t.unit = "GB/s";
  t.bytes = 512ull << 20;
  t.gpus = {0, 1};
  t.matrices.push_back({"device_to_device_memcpy_read_ce", "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)", 2, 2,
                        {std::nullopt, 10.25, 20.5, std::nullopt}});
  TestcaseCell a{0, 1, 1, 8, 6, 0.001};
  TestcaseCell b{1, 0, 1, 8, 7, 0.002};
  t.cells = {a, b};
  return t;
}

TEST(P2pTestcases, SumCountsNaCellsAsZero) { EXPECT_DOUBLE_EQ(two_gpu_read().matrices[0].sum(), 30.75); }

TEST(P2pTestcases, JsonRoundTripKeepsMatricesCellsAndSkips) {
  P2pResults results;
  results.request.testcases = {"device_to_device_memcpy_read_ce", "device_local_copy"};
  results.request.testcase_gpus = {0, 1};
  results.request.testcase_bytes = 64ull << 20;
  results.testcases.push_back(two_gpu_read());
  TestcaseResult skipped;
  skipped.name = "device_local_copy";
  skipped.status = PointStatus::kNa;
  skipped.reason = "needs 2 GPUs (1 visible)";
  results.testcases.push_back(skipped);
  auto json = to_json(results);
  const auto& m = json["testcases"][0]["matrices"][0];
  EXPECT_TRUE(m["values"][0][0].is_null());
  EXPECT_EQ(m["values"][0][1], 10.25);
  EXPECT_EQ(m["sum"], 30.75);
  EXPECT_EQ(json["testcases"][1]["status"], "na");
  EXPECT_EQ(json["config"]["testcases"][1], "device_local_copy");
  EXPECT_EQ(json["config"]["testcase_bytes"], 64ull << 20);
  json["testcases"][0]["from_a_newer_linkscope"] = "kept";
  const auto back = p2p_results_from_json(JsonReader::root(json, "test"));
  ASSERT_EQ(back.testcases.size(), 2u);
  const auto& t = back.testcases[0];
  EXPECT_EQ(t.name, "device_to_device_memcpy_read_ce");
  EXPECT_EQ(t.gpus, (std::vector<int>{0, 1}));
  ASSERT_EQ(t.matrices.size(), 1u);
  EXPECT_EQ(t.matrices[0].rows, 2);
  EXPECT_EQ(t.matrices[0].columns, 2);
  EXPECT_FALSE(t.matrices[0].at(1, 1).has_value());
  EXPECT_DOUBLE_EQ(*t.matrices[0].at(1, 0), 20.5);
  ASSERT_EQ(t.cells.size(), 2u);
  EXPECT_EQ(t.cells[1].samples, 7u);
  EXPECT_EQ(t.extra["from_a_newer_linkscope"], "kept");
  EXPECT_EQ(back.testcases[1].reason, "needs 2 GPUs (1 visible)");
  EXPECT_EQ(back.request.testcases, results.request.testcases);
  EXPECT_EQ(back.request.testcase_bytes, 64ull << 20);
  EXPECT_EQ(to_json(back)["testcases"], json["testcases"]) << "written again, nothing is lost";
  EXPECT_TRUE(any_status(back, PointStatus::kNa));
}

TEST(P2pTestcases, RunsWithoutTestcasesWriteNoTestcasesKey) {
  P2pResults results;
  EXPECT_FALSE(to_json(results).contains("testcases"));
  EXPECT_FALSE(to_json(results)["config"].contains("testcases"));
  EXPECT_TRUE(p2p_results_from_json(JsonReader::root(to_json(results), "test")).testcases.empty());
}

TEST(P2pTestcases, WrongCellsAreCountedAndBadMatricesRejected) {
  P2pResults results;
  auto t = two_gpu_read();
  t.cells[0].wrong = 5;
  t.cells[0].status = PointStatus::kWrong;
  results.testcases.push_back(t);
  EXPECT_EQ(total_wrong(results), 5u);
  auto json = to_json(results);
  json["testcases"][0]["matrices"][0]["values"][1] = nlohmann::json::array({1.0});
  EXPECT_THROW(p2p_results_from_json(JsonReader::root(json, "run.json")), InputError);
  json["testcases"][0]["matrices"][0]["values"] = nlohmann::json::array({nlohmann::json::array({"fast", 1.0})});
  EXPECT_THROW(p2p_results_from_json(JsonReader::root(json, "run.json")), InputError);
}

TEST(P2pTestcases, TextIsNvbandwidthsLayout) {
  TestcaseResult skipped;
  skipped.name = "device_to_device_latency_sm";
  skipped.status = PointStatus::kNa;
  skipped.reason = "needs 2 GPUs (1 visible)";
  const std::string text = report::render_testcases_text({two_gpu_read(), skipped});
  EXPECT_EQ(text,
            "Running device_to_device_memcpy_read_ce.\n"
            "memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)\n"
            "           0         1\n"
            " 0       N/A     10.25\n"
            " 1     20.50       N/A\n"
            "\n"
            "SUM device_to_device_memcpy_read_ce 30.75\n"
            "\n"
            "Waived: device_to_device_latency_sm needs 2 GPUs (1 visible)\n\n");
}

TEST(P2pTestcases, TextListsFailedCellsAfterTheMatrix) {
  auto t = two_gpu_read();
  t.matrices[0].at(1, 0) = std::nullopt;
  t.cells[1].status = PointStatus::kError;
  t.cells[1].reason = "cudaMemcpyAsync: out of memory";
  const std::string text = report::render_testcases_text({t});
  EXPECT_NE(text.find(" 1       N/A       N/A\n"), std::string::npos) << text;
  EXPECT_NE(text.find("note: cell [1,0] error: cudaMemcpyAsync: out of memory\n"), std::string::npos) << text;
}

TEST(P2pTestcases, ASavedTestcaseRunRendersInTheSameLayout) {
  P2pResults results;
  results.testcases = {two_gpu_read()};
  const std::string text = report::render_p2p_text(results);
  EXPECT_EQ(text, report::render_testcases_text(results.testcases));
  EXPECT_EQ(text.rfind("Running device_to_device_memcpy_read_ce.\n", 0), 0u);
}

}  // namespace
}  // namespace linkscope::model
