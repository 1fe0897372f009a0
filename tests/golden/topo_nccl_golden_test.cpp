// Acceptance: for every expected-output file (the named NCCL release's own output, or one derived from the spec for
// the 2.28.9 variants), linkscope's model prints the same lines before the system block (loading, KV, env echo, phase-5
// GDR lines), the same system block and path lines byte for byte, and takes the same P2P and GDR decisions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "core/environment.hpp"
#include "support/run_command.hpp"
#include "topo/nccl_format.hpp"
#include "topo/nccl_log_printer.hpp"
#include "topo/topology_model.hpp"
#include "topo_expected_output.hpp"

namespace linkscope {
namespace {

using test::TopoGoldenCase;

class TopoNcclGolden : public ::testing::TestWithParam<TopoGoldenCase> {};

TEST_P(TopoNcclGolden, MatchesNcclOutput) {
  const TopoGoldenCase& golden = GetParam();
  ASSERT_FALSE(golden.xml_path.empty()) << "no XML " << golden.xml_name << " for " << golden.expected_path;
  const auto expected = test::parse_expected_output(test::read_text(golden.expected_path));
  ASSERT_FALSE(expected.system_block.empty()) << golden.expected_path << " has no system block";

  const topo::ModelledVersion version = test::golden_model_version(golden);
  if (version.outside_supported) GTEST_SKIP() << version.note;
  const auto env = Environment::from_map({golden.env.begin(), golden.env.end()});
  const auto model = topo::load_topology_string(test::read_text(golden.xml_path), golden.xml_name, env, version);

  EXPECT_EQ(test::joined_lines(model.info_lines), test::joined_lines(expected.before_block));
  EXPECT_EQ(test::joined_lines(topo::nccl_system_block_lines(model)),
            test::joined_lines(expected.system_block));
  EXPECT_EQ(test::joined_lines(topo::nccl_path_lines(model)), test::joined_lines(expected.path_lines));

  // P2P: one harness line per ordered rank pair.
  if (!expected.p2p.empty()) {
    EXPECT_EQ(model.p2p.size(), expected.p2p.size());
  }
  for (const auto& want : expected.p2p) {
    const topo::P2pDecision* got = nullptr;
    for (const auto& decision : model.p2p) {
      if (decision.src_rank == want.src_rank && decision.dst_rank == want.dst_rank) got = &decision;
    }
    ASSERT_NE(got, nullptr) << "no P2P decision for rank " << want.src_rank << " -> " << want.dst_rank;
    SCOPED_TRACE("P2P rank " + std::to_string(want.src_rank) + " -> " + std::to_string(want.dst_rank));
    EXPECT_EQ(topo::path_type_name(got->path.type), want.path_type);
    EXPECT_EQ(got->path.count, want.count);
    EXPECT_EQ(topo::format_bw(got->path.bw), want.bw);
    EXPECT_EQ(got->check.p2p ? 1 : 0, want.p2p);
    EXPECT_EQ(got->check.read ? 1 : 0, want.read);
    EXPECT_EQ(got->check.intermediate_rank, want.intermediate_rank);
  }

  // GDR: the harness lists, per rank, every NET in index order.
  if (!expected.gdr.empty()) {
    EXPECT_EQ(model.gdr.size(), expected.gdr.size());
  }
  std::map<int, int> seen_per_rank;
  for (const auto& want : expected.gdr) {
    const int k = seen_per_rank[want.rank]++;
    const topo::GdrDecision* got = nullptr;
    int index = 0;
    for (const auto& decision : model.gdr) {
      if (decision.rank == want.rank && index++ == k) got = &decision;
    }
    ASSERT_NE(got, nullptr) << "no GDR decision #" << k << " for rank " << want.rank;
    SCOPED_TRACE("GDR rank " + std::to_string(want.rank) + " -> " + want.net);
    EXPECT_EQ(topo::nccl_node_id(model.system, {topo::kNet, got->net}), want.net);
    EXPECT_EQ(topo::path_type_name(got->path.type), want.path_type);
    EXPECT_EQ(got->path.count, want.count);
    EXPECT_EQ(topo::format_bw(got->path.bw), want.bw);
    EXPECT_EQ(topo::gdr_mode_name(got->write.mode), want.write_mode);
    EXPECT_EQ(topo::gdr_mode_name(got->read.mode), want.read_mode);
  }
}

std::string case_name(const ::testing::TestParamInfo<TopoGoldenCase>& info) {
  return test::golden_case_name(info.param);
}

INSTANTIATE_TEST_SUITE_P(ExpectedFiles, TopoNcclGolden, ::testing::ValuesIn(test::discover_topo_golden_cases()),
                         case_name);

TEST(TopoNcclGoldenDiscovery, FindsThePublicFixturesAndVariants) {
  const auto cases = test::discover_topo_golden_cases();
  int public_cases = 0;
  for (const auto& golden : cases) {
    if (golden.expected_path.find("/topo/expected-nccl-2.28.9/") != std::string::npos) ++public_cases;
  }
  EXPECT_GE(public_cases, 6);
  for (const std::string version : {"2.28.9", "2.29.7", "2.30.3", "2.30.7"}) {
    const auto count = std::count_if(cases.begin(), cases.end(), [&](const auto& c) { return c.nccl_version == version; });
    EXPECT_GE(count, 6) << "expected output of NCCL " << version;
  }
  EXPECT_GT(cases.size(), static_cast<std::size_t>(public_cases)) << "no topo-variants expected files found";
}

}  // namespace
}  // namespace linkscope
