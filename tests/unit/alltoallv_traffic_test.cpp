#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "plan/alltoallv_traffic.hpp"
#include "plan/collective_layout.hpp"
#include "plan/collective_run_plan.hpp"
#include "plan/collective_spec.hpp"
#include "report/nccl_tests_text.hpp"

namespace linkscope::coll {
namespace {

std::string error_of(const std::string& text, double scale = 1.0) {
  try {
    parse_traffic_matrix(text, "m.txt", scale);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(AlltoallvTraffic, GeneratedPatternSendsAndReceivesTheSameTotalOnEveryRank) {
  for (double spread : {0.0, 0.3, 1.0}) {
    AlltoallvTraffic t;
    t.spread = spread;
    for (int n : {2, 3, 5, 8}) {
      const std::uint64_t total = 1 << 20;
      const RankTraffic first = rank_traffic(t, 0, n, total);
      for (int r = 1; r < n; ++r) {
        const RankTraffic other = rank_traffic(t, r, n, total);
        EXPECT_EQ(other.send_bytes, first.send_bytes) << "spread " << spread << " n " << n << " rank " << r;
        EXPECT_EQ(other.recv_bytes, first.send_bytes) << "spread " << spread << " n " << n << " rank " << r;
      }
      EXPECT_LE(first.send_bytes, total);
      for (int to = 0; to < n; ++to) EXPECT_EQ(t.peer_bytes(0, to, n, total) % 16, 0u);
    }
  }
}

TEST(AlltoallvTraffic, SpreadZeroIsUniformAndOneWeighsByDistance) {
  AlltoallvTraffic uniform;
  uniform.spread = 0;
  for (int to = 0; to < 4; ++to) EXPECT_EQ(uniform.peer_bytes(1, to, 4, 4096), 1024u);
  AlltoallvTraffic weighted;  // nccl-tests' default: spread 1
  // Distances 0..3 of 4 ranks sum to 6: rank 0 sends 0, 1/6, 2/6, 3/6 of 6144 bytes.
  EXPECT_EQ(weighted.peer_bytes(0, 0, 4, 6144), 0u);
  EXPECT_EQ(weighted.peer_bytes(0, 1, 4, 6144), 1024u);
  EXPECT_EQ(weighted.peer_bytes(0, 3, 4, 6144), 3072u);
  EXPECT_EQ(weighted.peer_bytes(3, 0, 4, 6144), 1024u);  // distance (0 - 3 + 4) % 4 = 1
  // One rank keeps everything, rounded down to 16 bytes.
  EXPECT_EQ(weighted.peer_bytes(0, 0, 1, 1000), 992u);
}

TEST(AlltoallvTraffic, CountsAsNcclTestsGetCollByteCount) {
  // 1 MiB of float over 4 ranks: count 262144, param 65536 (16-byte aligned), total 1 MiB again.
  const CollectiveCounts c = collective_counts(CollectiveOp::kAlltoAllv, 1 << 20, 4, 4);
  EXPECT_EQ(c.param_count, 65536u);
  ASSERT_TRUE(c.peer_bytes);
  EXPECT_EQ(c.peer_bytes->size(), 16u);
  EXPECT_EQ(c.send_count, c.recv_count);
  std::uint64_t rank0 = 0;
  for (int to = 0; to < 4; ++to) rank0 += (*c.peer_bytes)[to] / 4;
  EXPECT_EQ(c.send_count, rank0);
  EXPECT_EQ(c.size_bytes(), rank0 * 4);
  // algbw is the busiest rank's bytes over the time, busbw x (n-1)/n.
  const Bandwidth bw = collective_bandwidth(CollectiveOp::kAlltoAllv, c.param_count, c.size_bytes(), 4, 1e-3, 4);
  EXPECT_DOUBLE_EQ(bw.algbw_gbps, static_cast<double>(c.size_bytes()) / 1e9 / 1e-3);
  EXPECT_DOUBLE_EQ(bw.busbw_gbps, bw.algbw_gbps * 3 / 4);
  EXPECT_FALSE(rounding_note(CollectiveOp::kAlltoAllv, 1 << 20, c, 4).has_value());
  EXPECT_EQ(nccl_tests_redop_column(CollectiveOp::kAlltoAllv, RedOp::kSum), "none");
  EXPECT_FALSE(op_checks_in_place(CollectiveOp::kAlltoAllv));
  EXPECT_EQ(parse_op("alltoallv_perf"), CollectiveOp::kAlltoAllv);
  EXPECT_EQ(parse_op("alltoall_perf"), CollectiveOp::kAlltoAll);
}

TEST(AlltoallvTraffic, MatrixModeUsesTheFileAndTheBusiestRank) {
  AlltoallvTraffic t;
  t.matrix = parse_traffic_matrix("100 200 150\n50 100 75\n300 150 200\n", "m.txt", 1.0);
  // Every value rounded down to 16 bytes: 96 192 144 / 48 96 64 / 288 144 192.
  EXPECT_EQ(t.matrix->at(0, 1), 192u);
  EXPECT_EQ(t.matrix->at(1, 2), 64u);
  const CollectiveCounts c = collective_counts(CollectiveOp::kAlltoAllv, 4096, 4, 3, &t);
  EXPECT_EQ(c.param_count, 0u);  // nccl-tests prints count 0 in matrix mode
  EXPECT_EQ(c.send_count, (288 + 144 + 192) / 4u);      // rank 2 sends most
  EXPECT_EQ(c.recv_count, (192 + 96 + 144) / 4u);       // rank 1 receives most
  EXPECT_EQ(c.size_bytes(), 624u);
  // Rank 1 receives 192 from 0, 96 from itself, 144 from 2, in source order; each source's part starts after what it
  // sent to the ranks before 1.
  const auto checks = output_checks(CollectiveOp::kAlltoAllv, 1, 3, 0, c, false);
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0].fixed_rank, 0);
  EXPECT_EQ(checks[0].offset, 0u);
  EXPECT_EQ(checks[0].count, 48u);
  EXPECT_EQ(checks[0].index_offset, 24u);  // rank 0 sent 96 bytes to rank 0 first
  EXPECT_EQ(checks[2].fixed_rank, 2);
  EXPECT_EQ(checks[2].offset, 48u + 24u);
  EXPECT_EQ(checks[2].index_offset, 72u);
  EXPECT_TRUE(output_checks(CollectiveOp::kAlltoAllv, 1, 3, 0, c, true).empty());
  const InputPlacement in = input_placement(CollectiveOp::kAlltoAllv, 1, 3, 0, c, false);
  EXPECT_EQ(in.count, (48 + 96 + 64) / 4u);  // its own total, not the busiest rank's
  // A larger matrix serves fewer ranks (its first rows and columns).
  EXPECT_EQ(collective_counts(CollectiveOp::kAlltoAllv, 4096, 4, 2, &t).send_count, (96 + 192) / 4u);
}

TEST(AlltoallvTraffic, MatrixScaleMultipliesBeforeRounding) {
  const TrafficMatrix m = parse_traffic_matrix("10 20\n30 40", "m.txt", 2.5);
  EXPECT_EQ(m.at(0, 0), 16u);   // 25 -> 16
  EXPECT_EQ(m.at(1, 1), 96u);   // 100 -> 96
  EXPECT_EQ(m.dimension, 2);
}

TEST(AlltoallvTraffic, MatrixErrorsNameFileAndLine) {
  EXPECT_EQ(error_of("1 2\n3 x\n"), "m.txt:2: alltoallv traffic matrix value 'x' at row 1 col 1 is not a number");
  EXPECT_EQ(error_of("1 2\n\n3 4 5\n"), "m.txt:3: alltoallv traffic matrix row 1 has 3 columns, expected 2");
  EXPECT_EQ(error_of("1 -2\n3 4\n"), "m.txt:1: alltoallv traffic matrix value -2 at row 0 col 1 is negative");
  EXPECT_EQ(error_of("1 2\n3 12abc\n"), "m.txt:2: alltoallv traffic matrix value '12abc' at row 1 col 1 is not a number");
  EXPECT_EQ(error_of("1 nan\n3 4\n"), "m.txt:1: alltoallv traffic matrix value 'nan' at row 0 col 1 is not a number");
  EXPECT_NE(error_of("1 1e30\n3 4\n", 1e10).find("m.txt:1: alltoallv traffic matrix value 1e30 at row 0 col 1 overflows"),
            std::string::npos);
  EXPECT_EQ(error_of(" \n\n"), "m.txt: the alltoallv traffic matrix is empty");
  EXPECT_EQ(error_of("1 2 3\n4 5 6\n"), "m.txt: the alltoallv traffic matrix must be square (got 2x3)");
}

TEST(AlltoallvTraffic, EnvironmentAsNcclTestsReadsIt) {
  const auto t = alltoallv_traffic_from_env(Environment::from_map(
      {{"NCCL_TESTS_ALLTOALLV_SPREAD", "1.5"}, {"NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY", "2"}}));
  EXPECT_DOUBLE_EQ(t.spread, 1.0);  // clamped to 0..1
  EXPECT_TRUE(t.print_summary);
  EXPECT_FALSE(t.matrix.has_value());
  EXPECT_TRUE(t.notes.empty());
  const auto low = alltoallv_traffic_from_env(Environment::from_map(
      {{"NCCL_TESTS_ALLTOALLV_SPREAD", "-1"}, {"NCCL_TESTS_ALLTOALLV_MATRIX_SCALE", "-3"}}));
  EXPECT_DOUBLE_EQ(low.spread, 0.0);
  EXPECT_DOUBLE_EQ(low.scale, 0.0);
  // Not a number: nccl-tests keeps its default; linkscope says so.
  const auto junk = alltoallv_traffic_from_env(Environment::from_map({{"NCCL_TESTS_ALLTOALLV_SPREAD", "half"}}));
  EXPECT_DOUBLE_EQ(junk.spread, 1.0);
  ASSERT_EQ(junk.notes.size(), 1u);
  EXPECT_NE(junk.notes[0].find("NCCL_TESTS_ALLTOALLV_SPREAD='half' is not a number"), std::string::npos);
  const auto off = alltoallv_traffic_from_env(Environment::from_map({{"NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY", "0"}}));
  EXPECT_FALSE(off.print_summary);
}

TEST(AlltoallvTraffic, MatrixFileFromTheEnvironment) {
  const std::string path = ::testing::TempDir() + "alltoallv_matrix.txt";
  std::ofstream(path) << "64 32\n16 0\n";
  const auto t = alltoallv_traffic_from_env(Environment::from_map(
      {{"NCCL_TESTS_ALLTOALLV_MATRIX_FILE", path}, {"NCCL_TESTS_ALLTOALLV_MATRIX_SCALE", "2"}}));
  ASSERT_TRUE(t.matrix.has_value());
  EXPECT_EQ(t.matrix->at(0, 0), 128u);
  EXPECT_EQ(t.matrix->file, path);
  std::remove(path.c_str());
  EXPECT_THROW(alltoallv_traffic_from_env(Environment::from_map({{"NCCL_TESTS_ALLTOALLV_MATRIX_FILE", path}})),
               Error);
}

TEST(AlltoallvTraffic, MatrixRunRulesUseNcclTestsWords) {
  AlltoallvTraffic t;
  t.matrix = parse_traffic_matrix("100 200\n50 100\n", "m.txt", 1.0);  // 96 192 / 48 96: rank 0 sends 288
  EXPECT_NO_THROW(check_alltoallv_run(t, 2, 288, 288));
  EXPECT_NO_THROW(check_alltoallv_run(AlltoallvTraffic{}, 64, 8, 1 << 30));  // generated: no rules
  const auto message = [&](int nranks, std::uint64_t b, std::uint64_t e) -> std::string {
    try {
      check_alltoallv_run(t, nranks, b, e);
    } catch (const UsageError& error) {
      return error.what();
    }
    return "accepted";
  };
  EXPECT_EQ(message(3, 288, 288),
            "Invalid alltoallv traffic matrix, requested nranks (3) is larger than matrix size (2) in file m.txt.");
  EXPECT_EQ(message(2, 287, 287),
            "maxBytes (-e) must be at least 288 bytes as required by traffic matrix file m.txt (got 287). Increase -e.");
  EXPECT_EQ(message(2, 8, 1024),
            "-b and -e options must be set to the same value (e.g., -b 32M -e 32M) when using alltoallv traffic matrix "
            "mode.");
  // The same rules when the run's series are planned.
  CollPlan plan;
  plan.op = CollectiveOp::kAlltoAllv;
  plan.types = {DataType::kFloat};
  plan.redops = {RedOp::kSum};
  plan.alltoallv = t;
  plan.min_bytes = 8;
  plan.max_bytes = 1024;
  EXPECT_THROW(series_keys(plan, 2), UsageError);
  plan.min_bytes = 1024;
  EXPECT_EQ(series_keys(plan, 2).size(), 1u);
}

TEST(AlltoallvTraffic, SummaryLinesAsNcclTestsPrintsThem) {
  AlltoallvTraffic t;
  t.spread = 0;
  const auto lines = alltoallv_summary_lines(t, 2, 2048, 1e-6);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "# NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY: mode=generated nranks=2 total_bytes=2048 spread=0.000 "
                      "time_usec=1.00");
  EXPECT_EQ(lines[1], "#   rank=0 send_bytes=2048 recv_bytes=2048 alg_bw=2.05 bus_bw=1.02");
  t.matrix = parse_traffic_matrix("32 0\n0 32\n", "m.txt", 1.0);
  EXPECT_EQ(alltoallv_summary_lines(t, 2, 0, 2e-6)[0],
            "# NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY: mode=matrix nranks=2 matrix_dim=2 scale=1.000 time_usec=2.00");
}

TEST(AlltoallvTraffic, SummaryLinesLandInTheRowWhereNcclTestsPrintsThem) {
  // nccl-tests prints the summary from its bandwidth function, after the row's first columns and after the
  // out-of-place cell, without a newline before it.
  report::NcclTestsRow row;
  row.size_bytes = 2048;
  row.count = 256;
  row.type = "float";
  row.redop = "none";
  row.out_of_place = {1.0, 2.05, 1.02, 0.0, std::nullopt, {"# A", "#   a"}};
  row.in_place = {1.5, 1.37, 0.68, std::nullopt, std::nullopt, {"# B"}};
  EXPECT_EQ(report::render_nccl_tests_row(row),
            "        2048           256     float    none      -1# A\n"
            "#   a\n"
            "     1.00    2.05    1.02       0# B\n"
            "     1.50    1.37    0.68    N/A\n");
}

}  // namespace
}  // namespace linkscope::coll
