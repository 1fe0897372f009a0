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
//
// tests/fixtures/topo-search-variants/ adds topologies and variables the harness did not cover, with what NCCL
// 2.28.9's own search/connect/tuning code prints for them (that directory's SOURCES.md says how); there the lines
// only init.cc prints (P2P Chunksize, N coll channels, buffer variable echoes) are not part of the comparison.
#include <gtest/gtest.h>

#include <algorithm>
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
  bool search_failed = false;           // NCCL stopped in the ring search ("HARNESS: ncclTopoCompute(...) failed")
};

bool is_run_time_line(const std::string& line) {
  return line.rfind("comm 0x", 0) == 0 || line.rfind("Check P2P Type ", 0) == 0 ||
         line.rfind("ENV/Plugin: ", 0) == 0 || line.rfind("ncclOsDlopen(libnccl-env.so) failed", 0) == 0;
}

// NCCL's error trace ("src/graph/search.cc:484 -> 3"; from 2.30.7 "src/graph/search.cc:515 (ncclTopoSelectNets) -> 3"):
// where its code returned, not part of the model.
bool is_return_trace(const std::string& line) {
  static const std::regex kTrace(R"(src/\S+:\d+( \(\w+\))? -> \d+)");
  return std::regex_match(line, kTrace);
}

// "[time] host [0] src/graph/topo.cc:1698 NCCL WARN text" as linkscope prints it: "NCCL WARN text".
std::string warn_as_printed(const std::string& line) {
  const auto at = line.find(" NCCL WARN ");
  return at == std::string::npos ? line : "NCCL WARN " + line.substr(at + 11);
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
    if (raw.rfind("HARNESS: ncclTopoCompute(", 0) == 0) out.search_failed = true;
    if (raw.rfind("HARNESS:", 0) == 0) continue;
    const std::string line = warn_as_printed(test::strip_prefix(raw));
    if (is_return_trace(line)) continue;
    // NCCL's WARN starts with a line break of its own: the empty line before it belongs to the WARN.
    if (line.rfind("NCCL WARN ", 0) == 0 && !all.empty() && all.back().empty()) all.pop_back();
    all.push_back(line);
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

// The lines NCCL's host code behind topo-search-variants/ does not print (its SOURCES.md says why).
bool printed_by_init_only(const std::string& line) {
  static const std::regex kInitOnly(
      R"(^(P2P Chunksize set to .*|\d+ coll channels, .*|NCCL_(LL_|LL128_)?BUFFSIZE set by .*|)"
      R"(NCCL_P2P_(NVL|PCI)_CHUNKSIZE set by .*|NCCL_(MIN|MAX)_P2P_NCHANNELS set by .*))");
  return std::regex_match(line, kInitOnly);
}

struct SearchCase {
  TopoGoldenCase golden;
  bool whole_init = true;  // the expected file is a whole init (the shared harness), not NCCL's host code alone
};

class TopoSearchGolden : public ::testing::TestWithParam<SearchCase> {};

TEST_P(TopoSearchGolden, MatchesNcclSearchChannelsAndTuning) {
  const TopoGoldenCase& golden = GetParam().golden;
  const bool whole_init = GetParam().whole_init;
  ASSERT_FALSE(golden.xml_path.empty()) << "no XML " << golden.xml_name << " for " << golden.expected_path;
  const ExpectedSearch expected = parse_expected_search(test::read_text(golden.expected_path));
  ASSERT_FALSE(expected.lines.empty()) << golden.expected_path << " has no search lines";
  const topo::ModelledVersion version = test::golden_model_version(golden);
  if (version.outside_supported) GTEST_SKIP() << version.note;
  const auto env = Environment::from_map({golden.env.begin(), golden.env.end()});
  const auto model = topo::load_topology_string(test::read_text(golden.xml_path), golden.xml_name, env, version);
  const auto comm = topo::model_communicator(model, topo::resolve_comm_params(env));
  if (expected.search_failed) {
    // NCCL itself stops in the ring search: the same lines up to its error, no communicator, no tuner choice.
    EXPECT_TRUE(comm.search_failed) << comm.unavailable;
    EXPECT_EQ(test::joined_lines(topo::nccl_search_log_lines(model, comm)), test::joined_lines(expected.lines));
    EXPECT_TRUE(expected.algo_lines.empty());
    EXPECT_TRUE(topo::nccl_algo_lines(comm).empty());
    return;
  }
  if (whole_init) {
    ASSERT_NE(expected.lines.back().find(" coll channels, "), std::string::npos) << "no coll channels line";
    EXPECT_EQ(expected.excluded, 2) << "exactly the comm and Check P2P Type lines are left out";
  }
  ASSERT_EQ(expected.algo_lines.size(), 5u * 31u) << "5 collectives x 31 sizes";
  ASSERT_TRUE(comm.unavailable.empty()) << comm.unavailable;

  std::vector<std::string> lines = topo::nccl_search_log_lines(model, comm);
  if (!whole_init) lines.erase(std::remove_if(lines.begin(), lines.end(), printed_by_init_only), lines.end());
  EXPECT_EQ(test::joined_lines(lines), test::joined_lines(expected.lines));
  EXPECT_EQ(test::joined_lines(topo::nccl_algo_lines(comm)), test::joined_lines(expected.algo_lines));
}

std::vector<SearchCase> search_cases(const std::string& dir, bool whole_init) {
  std::vector<SearchCase> cases;
  for (const std::string& version : test::golden_nccl_versions()) {
    for (auto& golden : test::discover_golden_cases("expected-nccl-" + version + "-search", {dir})) {
      cases.push_back({std::move(golden), whole_init});
    }
  }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<SearchCase>& info) {
  return test::golden_case_name(info.param.golden);
}

// Each release's whole init through the shared harness (tests/fixtures/topo/expected-nccl-X.Y.Z-search/).
INSTANTIATE_TEST_SUITE_P(ExpectedNcclSearch, TopoSearchGolden, ::testing::ValuesIn(search_cases("topo", true)),
                         case_name);
// Each release's own search/connect/tuning code on more topologies (tests/fixtures/topo-search-variants/).
INSTANTIATE_TEST_SUITE_P(NcclHostCodeVariants, TopoSearchGolden,
                         ::testing::ValuesIn(search_cases("topo-search-variants", false)), case_name);

TEST(TopoSearchGoldenCases, EveryExpectedFileHasItsXml) {
  const std::size_t versions = test::golden_nccl_versions().size();
  EXPECT_EQ(versions, 4u) << "2.28.9, 2.29.7, 2.30.3, 2.30.7";
  EXPECT_EQ(search_cases("topo", true).size(), 8u * versions);
  EXPECT_EQ(search_cases("topo-search-variants", false).size(), 28u * versions);
  for (const std::string dir : {"topo", "topo-search-variants"}) {
    for (const auto& c : search_cases(dir, true)) EXPECT_FALSE(c.golden.xml_path.empty()) << c.golden.name;
  }
}

}  // namespace
}  // namespace linkscope
