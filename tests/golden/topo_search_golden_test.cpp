// Acceptance: for every file of tests/fixtures/topo/expected-nccl-2.28.9-search/ (NCCL 2.28.9's own output for one
// communicator with every GPU of the XML a rank, on one node, NVLS and CollNet off), linkscope prints the same
// lines from the graph search to "N coll channels, ..." and the same tuner choice ("HARNESS: ALGO ...") for every
// collective and size, line for line. A file NAME__NCCL_X-V.txt runs NAME's XML with NCCL_X=V.
//
// Lines of that part of the log that are not compared, and why:
//   "comm 0x7f... rank 0 nRanks N ..."   the address of the communicator in that run;
//   "Check P2P Type isAllDirectP2p ..."  whether the ranks share a process, and CUDA's P2P answer at run time;
//   "ENV/Plugin: ..."                    which environment plugin that run loaded.
// The harness's own lines ("HARNESS: ...") are compared separately (ALGO) or by the topology test (P2P, GDR); its
// P2P/GDR probes come before the search and log lines of their own, so the compared part starts after them.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "core/environment.hpp"
#include "support/run_command.hpp"
#include "topo/comm_params.hpp"
#include "topo/communicator_model.hpp"
#include "topo/search_log_printer.hpp"
#include "topo/topology_model.hpp"
#include "topo_expected_output.hpp"

namespace linkscope {
namespace {

using test::TopoGoldenCase;

struct ExpectedSearch {
  std::vector<std::string> lines;       // from the first line after the path lines to "N coll channels, ..."
  std::vector<std::string> algo_lines;  // "ALGO ..." (the harness's lines without "HARNESS: ")
  int excluded = 0;
};

bool is_run_time_line(const std::string& line) {
  return line.rfind("comm 0x", 0) == 0 || line.rfind("Check P2P Type ", 0) == 0 ||
         line.rfind("ENV/Plugin: ", 0) == 0;
}

// The search part starts after the topology: after the last path line and after the harness's own P2P/GDR probes
// (whose GDR checks log "GPU Direct RDMA ..." lines of their own).
ExpectedSearch parse_expected_search(const std::string& text) {
  static const std::regex kAlgo(R"(HARNESS: (ALGO \w+ \d+ : .*))");
  static const std::regex kProbe(R"(HARNESS: (P2P|GDR|ngpus) .*)");
  std::vector<std::string> all;
  std::size_t begin = 0;
  ExpectedSearch out;
  std::istringstream in(text);
  for (std::string raw; std::getline(in, raw);) {
    std::smatch m;
    if (std::regex_match(raw, m, kAlgo)) out.algo_lines.push_back(m[1]);
    if (std::regex_match(raw, kProbe)) begin = all.size();
    if (raw.rfind("HARNESS:", 0) == 0) continue;
    all.push_back(test::strip_prefix(raw));
    if (test::is_path_line(all.back())) begin = all.size();
  }
  for (std::size_t i = begin; i < all.size(); ++i) {
    if (is_run_time_line(all[i])) {
      ++out.excluded;
      continue;
    }
    out.lines.push_back(all[i]);
    if (all[i].find(" coll channels, ") != std::string::npos) break;
  }
  return out;
}

class TopoSearchGolden : public ::testing::TestWithParam<TopoGoldenCase> {};

TEST_P(TopoSearchGolden, MatchesNcclSearchChannelsAndTuning) {
  const TopoGoldenCase& golden = GetParam();
  ASSERT_FALSE(golden.xml_path.empty()) << "no XML " << golden.xml_name << " for " << golden.expected_path;
  const ExpectedSearch expected = parse_expected_search(test::read_text(golden.expected_path));
  ASSERT_FALSE(expected.lines.empty()) << golden.expected_path << " has no search lines";
  ASSERT_NE(expected.lines.back().find(" coll channels, "), std::string::npos) << "no coll channels line";
  EXPECT_EQ(expected.excluded, 2) << "exactly the comm and Check P2P Type lines are left out";
  ASSERT_EQ(expected.algo_lines.size(), 5u * 31u) << "5 collectives x 31 sizes";

  const auto env = Environment::from_map({golden.env.begin(), golden.env.end()});
  const auto model = topo::load_topology_string(test::read_text(golden.xml_path), golden.xml_name, env);
  const auto comm = topo::model_communicator(model, topo::resolve_comm_params(env));
  ASSERT_TRUE(comm.unavailable.empty()) << comm.unavailable;

  EXPECT_EQ(test::joined_lines(topo::nccl_search_log_lines(model, comm)), test::joined_lines(expected.lines));
  EXPECT_EQ(test::joined_lines(topo::nccl_algo_lines(comm)), test::joined_lines(expected.algo_lines));
}

std::string case_name(const ::testing::TestParamInfo<TopoGoldenCase>& info) {
  return test::golden_case_name(info.param);
}

INSTANTIATE_TEST_SUITE_P(ExpectedNccl2289Search, TopoSearchGolden,
                         ::testing::ValuesIn(test::discover_golden_cases("expected-nccl-2.28.9-search", {"topo"})),
                         case_name);

TEST(TopoSearchGoldenCases, EveryExpectedFileHasItsXml) {
  const auto cases = test::discover_golden_cases("expected-nccl-2.28.9-search", {"topo"});
  EXPECT_EQ(cases.size(), 8u);
  for (const auto& golden : cases) EXPECT_FALSE(golden.xml_path.empty()) << golden.name;
}

}  // namespace
}  // namespace linkscope
