// Golden tests: the nccl-tests renderer, fed the numbers of real nccl-tests 2.19.6 runs, must reproduce
// their text byte for byte; and the size/count columns must follow from collective_counts().
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "plan/collective_spec.hpp"
#include "nccl_tests_fixture.hpp"
#include "report/nccl_tests_text.hpp"
#include "support/run_command.hpp"

namespace linkscope {
namespace {

using report::NcclTestsCell;
using report::NcclTestsDevice;
using report::NcclTestsFooter;
using report::NcclTestsPreamble;
using report::NcclTestsRow;

using test::ParsedFixture;
using test::parse_fixture;
using test::render;

class NcclTestsGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(NcclTestsGolden, RendersTheFixtureByteForByte) {
  const ParsedFixture f = parse_fixture(GetParam());
  ASSERT_EQ(f.rows.size(), 31u);
  ASSERT_EQ(f.preamble.devices.size(), 2u);
  EXPECT_EQ(render(f), f.nccl_tests_text);
}

TEST_P(NcclTestsGolden, SizeAndCountColumnsFollowNcclTestsRounding) {
  const ParsedFixture f = parse_fixture(GetParam());
  std::string op_text = f.preamble.program;
  const auto op = coll::parse_op(op_text);
  ASSERT_TRUE(op.has_value()) << op_text;
  std::uint64_t requested = f.preamble.min_bytes;
  for (const auto& row : f.rows) {
    const auto counts = coll::collective_counts(*op, requested, 4, 2);
    EXPECT_EQ(counts.size_bytes(), row.size_bytes) << op_text << " requested " << requested;
    EXPECT_EQ(counts.param_count, row.count) << op_text << " requested " << requested;
    requested *= f.preamble.step;
  }
}

TEST_P(NcclTestsGolden, FooterAverageIsTheMeanOfEveryCell) {
  // nccl-tests averages busbw over all sizes and both placements; the printed cells are rounded, so the
  // mean of the printed values matches the footer to about the rounding step.
  const ParsedFixture f = parse_fixture(GetParam());
  double sum = 0;
  for (const auto& row : f.rows) sum += row.out_of_place.busbw_gbps + row.in_place.busbw_gbps;
  EXPECT_NEAR(sum / (2.0 * f.rows.size()), f.footer.average_busbw_gbps, 0.01);
}

INSTANTIATE_TEST_SUITE_P(H200x2, NcclTestsGolden,
                         ::testing::Values("ncclt-all_reduce.txt", "ncclt-all_reduce-default-args.txt",
                                           "ncclt-all_gather.txt", "ncclt-alltoall.txt", "ncclt-broadcast.txt",
                                           "ncclt-reduce_scatter.txt", "ncclt-sendrecv.txt"));

TEST(NcclTestsGoldenOneGpu, RendersTheOneH200CaptureByteForByte) {
  // all_reduce_perf -b 8 -e 1G -f 4 -g 1 on one H200 (bench/results/2026-12-02-h200x1/run2): busbw 0 everywhere,
  // in-place times below a microsecond and an algbw of 1e+06 in the widest cell.
  const ParsedFixture f = parse_fixture("ncclt-all_reduce.txt", "h200x1");
  ASSERT_EQ(f.rows.size(), 14u);
  ASSERT_EQ(f.preamble.devices.size(), 1u);
  EXPECT_EQ(f.preamble.devices[0].host, "vm");
  EXPECT_EQ(render(f), f.nccl_tests_text);
  std::uint64_t requested = f.preamble.min_bytes;
  for (const auto& row : f.rows) {
    EXPECT_EQ(coll::collective_counts(coll::CollectiveOp::kAllReduce, requested, 4, 1).param_count, row.count);
    requested *= f.preamble.step;
  }
}

TEST(NcclTestsNumber, WidthLimitedDecimalsAsNcclTests) {
  EXPECT_EQ(report::nccl_tests_number(17.0, 7), "  17.00");
  EXPECT_EQ(report::nccl_tests_number(1714.98, 7), "1714.98");
  EXPECT_EQ(report::nccl_tests_number(12401.7, 7), "12401.7");
  EXPECT_EQ(report::nccl_tests_number(124017.0, 7), " 124017");
  EXPECT_EQ(report::nccl_tests_number(1240170.0, 7), "1240170");
  EXPECT_EQ(report::nccl_tests_number(12401700.0, 7), "1.2e+07");
  EXPECT_EQ(report::nccl_tests_number(0.0, 6), "  0.00");
  EXPECT_EQ(report::nccl_tests_number(346.32, 6), "346.32");
  EXPECT_EQ(report::nccl_tests_number(1000.5, 6), "1000.5");
  EXPECT_EQ(report::nccl_tests_number(123456.0, 6), "123456");
  EXPECT_EQ(report::nccl_tests_number(1234567.0, 6), " 1e+06");
}

TEST(NcclTestsRow, NotCheckedCellsPrintNA) {
  NcclTestsRow row;
  row.size_bytes = 32;
  row.count = 4;
  row.type = "float";
  row.redop = "none";
  row.root = -1;
  row.out_of_place = {20.2, 0.0016, 0.0008, 0.0};
  row.in_place = {23.7, 0.00135, 0.000675, std::nullopt};
  EXPECT_EQ(report::render_nccl_tests_row(row),
            "          32             4     float    none      -1    20.20    0.00    0.00       0    23.70    0.00    "
            "0.00    N/A\n");
}

TEST(NcclTestsFooter, MinimumBandwidthCheckAndError) {
  NcclTestsFooter footer;
  footer.program = "all_reduce_perf";
  footer.average_busbw_gbps = 80;
  footer.minimum_busbw = 100;
  footer.out_of_bounds = 2;
  footer.error = "unhandled cuda error";
  EXPECT_TRUE(report::nccl_tests_bandwidth_failed(footer));
  EXPECT_EQ(report::render_nccl_tests_footer(footer),
            "# Out of bounds values : 2 FAILED\n# Avg bus bandwidth    : 80 FAILED\n#\n"
            "# Collective test concluded: all_reduce_perf\n#\n# error: unhandled cuda error\n");
  footer.average_busbw_gbps = 95;
  EXPECT_FALSE(report::nccl_tests_bandwidth_failed(footer));
}

}  // namespace
}  // namespace linkscope
