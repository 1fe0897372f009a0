// The nvbandwidth v0.8 testcase table: names, matrix headings and the copies each cell runs.
#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "plan/nvbandwidth_testcases.hpp"

namespace linkscope::plan {
namespace {

constexpr std::uint64_t kB = 1 << 20;
constexpr int kHost = kHostMemory;

TEST(NvbandwidthTestcases, EverySingleNodeNameOnceInNvbandwidthsOrder) {
  const auto names = nvbandwidth_testcase_names();
  ASSERT_EQ(names.size(), 35u);  // v0.8: 16 CE, 16 SM, 2 latency, device_local_copy
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  EXPECT_EQ(names.front(), "host_to_device_memcpy_ce");
  EXPECT_EQ(names[15], "one_to_all_read_ce");
  EXPECT_EQ(names[16], "host_to_device_memcpy_sm");
  EXPECT_EQ(names[32], "host_device_latency_sm");
  EXPECT_EQ(names[33], "device_to_device_latency_sm");
  EXPECT_EQ(names.back(), "device_local_copy");
  for (const char* name :
       {"device_to_host_memcpy_ce", "host_to_device_bidirectional_memcpy_sm", "device_to_host_bidirectional_memcpy_ce",
        "host_to_all_memcpy_sm", "all_to_host_bidirectional_memcpy_ce", "host_to_all_bidirectional_memcpy_sm",
        "one_to_all_write_sm", "all_to_one_read_sm", "all_to_one_write_ce", "device_to_device_memcpy_read_ce",
        "device_to_device_memcpy_write_sm", "device_to_device_bidirectional_memcpy_read_sm",
        "device_to_device_bidirectional_memcpy_write_ce"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
}

TEST(NvbandwidthTestcases, UnknownNameIsAUsageErrorListingTheValidOnes) {
  try {
    find_testcase("host_to_device_memcpy");
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("--testcase host_to_device_memcpy: unknown nvbandwidth testcase"), std::string::npos);
    EXPECT_NE(message.find("valid: host_to_device_memcpy_ce, device_to_host_memcpy_ce,"), std::string::npos);
    EXPECT_NE(message.find("device_local_copy"), std::string::npos);
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line";
  }
}

TEST(NvbandwidthTestcases, SelectionKeepsTheGivenOrderOnce) {
  const auto selected = select_testcases({"device_local_copy", "host_to_device_memcpy_ce", "device_local_copy"});
  ASSERT_EQ(selected.size(), 2u);
  EXPECT_EQ(selected[0]->name, "device_local_copy");
  EXPECT_EQ(selected[1]->name, "host_to_device_memcpy_ce");
  EXPECT_THROW(select_testcases({"device_local_copy", "nope"}), UsageError);
}

TEST(NvbandwidthTestcases, HeadingsAndSumKeysAreNvbandwidths) {
  EXPECT_EQ(find_testcase("host_to_device_memcpy_ce").matrices.at(0).title,
            "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)");
  EXPECT_EQ(find_testcase("device_to_host_memcpy_sm").matrices.at(0).title,
            "memcpy SM CPU(row) <- GPU(column) bandwidth (GB/s)");
  EXPECT_EQ(find_testcase("device_to_device_memcpy_write_ce").matrices.at(0).title,
            "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)");
  EXPECT_EQ(find_testcase("host_device_latency_sm").matrices.at(0).title,
            "memory latency SM CPU(row) <-> GPU(column) (ns)");
  EXPECT_EQ(find_testcase("device_local_copy").matrices.at(0).title, "memcpy local GPU(column) bandwidth (GB/s)");
  const auto& bidir = find_testcase("device_to_device_bidirectional_memcpy_read_sm");
  ASSERT_EQ(bidir.matrices.size(), 3u);
  EXPECT_EQ(bidir.matrices[0].key, "device_to_device_bidirectional_memcpy_read_sm_read1");
  EXPECT_EQ(bidir.matrices[1].title, "memcpy SM GPU(row) <-> GPU(column) Read2 bandwidth (GB/s)");
  EXPECT_EQ(bidir.matrices[2].key, "device_to_device_bidirectional_memcpy_read_sm_total");
  EXPECT_EQ(find_testcase("device_to_device_bidirectional_memcpy_write_ce").matrices[0].key,
            "device_to_device_bidirectional_memcpy_write_ce_write1");
  EXPECT_EQ(find_testcase("one_to_all_read_ce").matrices.at(0).key, "one_to_all_read_ce");
}

TEST(NvbandwidthTestcases, BufferSizesAndWhatEachCellReports) {
  EXPECT_EQ(testcase_bytes(find_testcase("host_to_device_memcpy_ce"), 0), 512 * kB);
  EXPECT_EQ(testcase_bytes(find_testcase("host_to_device_memcpy_ce"), 64 * kB), 64 * kB);
  EXPECT_EQ(testcase_bytes(find_testcase("host_device_latency_sm"), 64 * kB), 2 * kB);
  EXPECT_EQ(find_testcase("one_to_all_write_ce").value(), CellValue::kTotal);
  EXPECT_EQ(find_testcase("all_to_one_read_sm").value(), CellValue::kTotal);
  EXPECT_EQ(find_testcase("device_to_device_bidirectional_memcpy_write_sm").value(), CellValue::kEach);
  EXPECT_EQ(find_testcase("host_to_all_bidirectional_memcpy_ce").value(), CellValue::kFirst);
}

TEST(NvbandwidthTestcases, DeviceTestcasesAreSkippedOnOneGpuHostOnesRun) {
  EXPECT_EQ(testcase_skip_reason(find_testcase("device_to_device_memcpy_read_ce"), 1), "needs 2 GPUs (1 visible)");
  EXPECT_EQ(testcase_skip_reason(find_testcase("one_to_all_write_sm"), 1), "needs 2 GPUs (1 visible)");
  EXPECT_EQ(testcase_skip_reason(find_testcase("device_to_device_latency_sm"), 1), "needs 2 GPUs (1 visible)");
  EXPECT_EQ(testcase_skip_reason(find_testcase("device_to_device_latency_sm"), 2), "");
  for (const char* name : {"host_to_device_memcpy_sm", "host_to_all_bidirectional_memcpy_ce", "device_local_copy",
                           "host_device_latency_sm"}) {
    EXPECT_EQ(testcase_skip_reason(find_testcase(name), 1), "") << name;
  }
}

TEST(NvbandwidthTestcases, HostBidirectionalCeRunsTheOppositeCopyWithTwiceTheBytes) {
  const auto cells = plan_cells(find_testcase("host_to_device_bidirectional_memcpy_ce"), {0}, kB);
  ASSERT_EQ(cells.size(), 1u);
  const std::vector<PlannedCopy> expected = {{kHost, 0, 0, kB, false}, {0, kHost, 0, 2 * kB, false}};
  EXPECT_EQ(cells[0].copies, expected);
  const auto d2h = plan_cells(find_testcase("device_to_host_bidirectional_memcpy_ce"), {3}, kB);
  const std::vector<PlannedCopy> expected_d2h = {{3, kHost, 3, kB, false}, {kHost, 3, 3, 2 * kB, false}};
  EXPECT_EQ(d2h.at(0).copies, expected_d2h);
}

TEST(NvbandwidthTestcases, HostBidirectionalSmIsOneSplitWarpKernel) {
  for (const char* name : {"host_to_device_bidirectional_memcpy_sm", "device_to_host_bidirectional_memcpy_sm"}) {
    const auto cells = plan_cells(find_testcase(name), {0, 1}, kB);
    ASSERT_EQ(cells.size(), 2u) << name;
    const std::vector<PlannedCopy> expected = {{kHost, 1, 1, kB, true}};
    EXPECT_EQ(cells[1].copies, expected) << name;
  }
}

TEST(NvbandwidthTestcases, HostToAllInterferesFromEveryOtherGpu) {
  const auto plain = plan_cells(find_testcase("host_to_all_memcpy_ce"), {0, 1, 2}, kB);
  ASSERT_EQ(plain.size(), 3u);
  const std::vector<PlannedCopy> expected = {{kHost, 1, 1, kB, false}, {kHost, 0, 0, 2 * kB, false},
                                             {kHost, 2, 2, 2 * kB, false}};
  EXPECT_EQ(plain[1].copies, expected);
  const auto bidir = plan_cells(find_testcase("all_to_host_bidirectional_memcpy_ce"), {0, 1}, kB);
  const std::vector<PlannedCopy> expected_bidir = {{0, kHost, 0, kB, false}, {kHost, 0, 0, 2 * kB, false},
                                                   {1, kHost, 1, 2 * kB, false}, {kHost, 1, 1, 2 * kB, false}};
  EXPECT_EQ(bidir.at(0).copies, expected_bidir);
  const auto sm = plan_cells(find_testcase("host_to_all_bidirectional_memcpy_sm"), {0, 1}, kB);
  const std::vector<PlannedCopy> expected_sm = {{kHost, 0, 0, kB, true}, {1, kHost, 1, kB, true}};
  EXPECT_EQ(sm.at(0).copies, expected_sm);
  // One GPU: the measured copy alone.
  EXPECT_EQ(plan_cells(find_testcase("all_to_host_memcpy_sm"), {0}, kB).at(0).copies.size(), 1u);
}

TEST(NvbandwidthTestcases, DeviceToDeviceRowsAndColumns) {
  const auto read = plan_cells(find_testcase("device_to_device_memcpy_read_ce"), {0, 1}, kB);
  ASSERT_EQ(read.size(), 2u);  // the diagonal is N/A
  // Cell (row 0, column 1): GPU 0 pulls from GPU 1.
  const auto& r01 = read[0].row == 0 ? read[0] : read[1];
  EXPECT_EQ(r01.column, 1);
  EXPECT_EQ(r01.copies, (std::vector<PlannedCopy>{{1, 0, 0, kB, false}}));
  const auto write = plan_cells(find_testcase("device_to_device_memcpy_write_sm"), {0, 1}, kB);
  const auto& w01 = write[0].row == 0 ? write[0] : write[1];
  EXPECT_EQ(w01.copies, (std::vector<PlannedCopy>{{0, 1, 0, kB, false}}));
  const auto latency = plan_cells(find_testcase("device_to_device_latency_sm"), {0, 1}, kB);
  const auto& l01 = latency[0].row == 0 ? latency[0] : latency[1];
  EXPECT_EQ(l01.copies, (std::vector<PlannedCopy>{{1, 0, 0, kB, false}})) << "row GPU reads the column's memory";
}

TEST(NvbandwidthTestcases, DeviceBidirectionalEachDirectionByItsReaderOrWriter) {
  const auto read = plan_cells(find_testcase("device_to_device_bidirectional_memcpy_read_ce"), {0, 1}, kB);
  const auto& r01 = read[0].row == 0 ? read[0] : read[1];
  EXPECT_EQ(r01.copies, (std::vector<PlannedCopy>{{1, 0, 0, kB, false}, {0, 1, 1, kB, false}}));
  const auto write = plan_cells(find_testcase("device_to_device_bidirectional_memcpy_write_sm"), {0, 1}, kB);
  const auto& w01 = write[0].row == 0 ? write[0] : write[1];
  EXPECT_EQ(w01.copies, (std::vector<PlannedCopy>{{1, 0, 1, kB, false}, {0, 1, 0, kB, false}}));
}

TEST(NvbandwidthTestcases, FansAndWhoseSmsCopy) {
  // one_to_all_read: every other GPU -> the column GPU; CE pulled by the column GPU ...
  const auto ce = plan_cells(find_testcase("one_to_all_read_ce"), {0, 1, 2}, kB);
  ASSERT_EQ(ce.size(), 3u);
  EXPECT_EQ(ce[0].copies, (std::vector<PlannedCopy>{{1, 0, 0, kB, false}, {2, 0, 0, kB, false}}));
  // ... SM issued by each source, as nvbandwidth v0.8 does (source context for every SM fan).
  const auto sm = plan_cells(find_testcase("one_to_all_read_sm"), {0, 1, 2}, kB);
  EXPECT_EQ(sm[0].copies, (std::vector<PlannedCopy>{{1, 0, 1, kB, false}, {2, 0, 2, kB, false}}));
  // all_to_one_read: the column GPU -> every other GPU, each destination pulling (CE).
  const auto out = plan_cells(find_testcase("all_to_one_read_ce"), {0, 1}, kB);
  EXPECT_EQ(out[0].copies, (std::vector<PlannedCopy>{{0, 1, 1, kB, false}}));
  const auto in = plan_cells(find_testcase("all_to_one_write_ce"), {0, 1}, kB);
  EXPECT_EQ(in[1].copies, (std::vector<PlannedCopy>{{0, 1, 0, kB, false}}));
}

TEST(NvbandwidthTestcases, ListTextHasIndexNameAndSummary) {
  const std::string text = list_testcases_text();
  EXPECT_EQ(text.rfind("Index, Name:\n", 0), 0u);
  EXPECT_NE(text.find("\n0, host_to_device_memcpy_ce:\n\t"), std::string::npos);
  EXPECT_NE(text.find("\n34, device_local_copy:\n\t"), std::string::npos);
}

}  // namespace
}  // namespace linkscope::plan
