#include <gtest/gtest.h>

#include <sys/stat.h>

#include "discover/nccl_probe.hpp"
#include "discover/path_compare.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope::discover {
namespace {

// The path lines NCCL 2.28.9 prints for h200x2/nccl-topo-dump.xml (topology spec §9.2): NET kept.
const std::vector<std::string> kH200x2Paths2289 = {
    "GPU/0-60 :GPU/0-60 (0/5000.0/LOC) GPU/0-70 (2/370.8/NVL) NVS/0-0 (1/370.8/NVL) CPU/0-ffffffffffffff (1/48.0/PHB) "
    "NET/0-0 (3/1.2/PHB) ",
    "GPU/0-70 :GPU/0-60 (2/370.8/NVL) GPU/0-70 (0/5000.0/LOC) NVS/0-0 (1/370.8/NVL) CPU/0-ffffffffffffff (1/48.0/PHB) "
    "NET/0-0 (3/1.2/PHB) ",
    "NET/0-0 :GPU/0-60 (3/1.2/PHB) GPU/0-70 (3/1.2/PHB) CPU/0-ffffffffffffff (2/1.2/PHB) NET/0-0 (0/5000.0/LOC) ",
};

TEST(DiscoverPathCompare, ParsesPathLinesWithOrWithoutTheLogPrefix) {
  const auto line = parse_path_line("vm:2889:2901 [1] NCCL INFO GPU/0-60 :GPU/0-60 (0/5000.0/LOC) NVS/0-0 (1/370.8/NVL) ");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->node, "GPU/0-60");
  ASSERT_EQ(line->entries.size(), 2u);
  EXPECT_EQ(line->entries[1].target, "NVS/0-0");
  EXPECT_EQ(line->entries[1].value, "1/370.8/NVL");
  EXPECT_TRUE(parse_path_line(kH200x2Paths2289[2]).has_value());
  EXPECT_FALSE(parse_path_line("vm:1:2 [0] NCCL INFO === System : maxBw 370.8 totalBw 370.8 ===").has_value());
  EXPECT_FALSE(parse_path_line("vm:1:2 [0] NCCL INFO + PCI[48.0] - GPU/0-60 (0)").has_value());
  EXPECT_FALSE(parse_path_line("vm:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/direct pointer").has_value());
}

TEST(DiscoverPathCompare, ReadsTheFirstRanksBlockFromARealLog) {
  const auto paths = nccl_log_path_lines(test::read_text(test::fixture("h200x2/nccl-2.28.3-info.log")));
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0], "GPU/0-60 :GPU/0-60 (0/5000.0/LOC) GPU/0-70 (2/370.8/NVL) NVS/0-0 (1/370.8/NVL) "
                      "CPU/0-ffffffffffffff (1/48.0/PHB) ");
  EXPECT_EQ(paths[1].rfind("GPU/0-70 :", 0), 0u);
  EXPECT_TRUE(nccl_log_path_lines("no NCCL here\n").empty());
}

TEST(DiscoverPathCompare, NetTrimmingBefore2287IsAnExpectedDifference) {
  const auto nccl_2283 = nccl_log_path_lines(test::read_text(test::fixture("h200x2/nccl-2.28.3-info.log")));
  const PathComparison old_nccl = compare_path_lines(kH200x2Paths2289, nccl_2283, "2.28.3");
  EXPECT_FALSE(old_nccl.identical());
  EXPECT_TRUE(old_nccl.equivalent());
  ASSERT_EQ(old_nccl.differences.size(), 3u);  // NET/0-0 in both GPU lines, and the NET line
  EXPECT_EQ(old_nccl.differences[0].target, "NET/0-0");
  EXPECT_EQ(old_nccl.differences[0].ours, "3/1.2/PHB");
  EXPECT_EQ(old_nccl.differences[0].theirs, "");
  EXPECT_NE(old_nccl.differences[0].explanation.find("removes NET nodes"), std::string::npos);
  EXPECT_EQ(old_nccl.differences[2].node, "NET/0-0");
  EXPECT_EQ(old_nccl.differences[2].theirs, "");

  // The same gap from a NCCL that keeps NET nodes is a real difference.
  EXPECT_FALSE(compare_path_lines(kH200x2Paths2289, nccl_2283, "2.28.9").equivalent());
  EXPECT_TRUE(compare_path_lines(kH200x2Paths2289, kH200x2Paths2289, "2.28.9").identical());
}

TEST(DiscoverPathCompare, AChangedGpuPathIsNotExplainedAway) {
  std::vector<std::string> changed = kH200x2Paths2289;
  changed[0].replace(changed[0].find("2/370.8/NVL"), 11, "2/48.0/PHB");
  const PathComparison comparison = compare_path_lines(kH200x2Paths2289, changed, "2.28.3");
  ASSERT_EQ(comparison.differences.size(), 1u);
  EXPECT_EQ(comparison.differences[0].node, "GPU/0-60");
  EXPECT_EQ(comparison.differences[0].target, "GPU/0-70");
  EXPECT_EQ(comparison.differences[0].theirs, "2/48.0/PHB");
  EXPECT_FALSE(comparison.equivalent());
}

TEST(DiscoverPathCompare, VersionOrdering) {
  EXPECT_TRUE(nccl_version_before("2.28.3", 2, 28, 7));
  EXPECT_FALSE(nccl_version_before("2.28.7", 2, 28, 7));
  EXPECT_FALSE(nccl_version_before("2.29.0", 2, 28, 7));
  EXPECT_TRUE(nccl_version_before("2.18.5", 2, 19, 0));
}

TEST(DiscoverNcclProbe, ChildEnvironmentKeepsNvlsOffUnlessTheUserDecides) {
  const auto plain = nccl_probe_environment("/tmp/x", Environment::from_map({}), {{"NCCL_P2P_LEVEL", "PIX"}});
  EXPECT_EQ(plain, (std::vector<std::string>{"NCCL_TOPO_DUMP_FILE=/tmp/x/nccl-topo.xml", "NCCL_DEBUG=INFO",
                                             "NCCL_DEBUG_SUBSYS=INIT,GRAPH", "NCCL_DEBUG_FILE=/tmp/x/nccl.log",
                                             "NCCL_NVLS_ENABLE=0", "NCCL_P2P_LEVEL=PIX"}));
  const auto user = nccl_probe_environment("/tmp/x", Environment::from_map({{"NCCL_NVLS_ENABLE", "1"}}), {});
  EXPECT_EQ(std::count(user.begin(), user.end(), "NCCL_NVLS_ENABLE=0"), 0);
}

// A stand-in for `linkscope __nccl-topo-probe`: a script that behaves as the child does.
std::string write_probe(const test::TempDir& dir, const std::string& body) {
  const std::string path = dir.write("probe.sh", "#!/bin/sh\n" + body);
  chmod(path.c_str(), 0755);
  return path;
}

TEST(DiscoverNcclProbe, CollectsNcclsDumpLogAndResult) {
  test::TempDir dir;
  const std::string probe = write_probe(dir,
                                        "[ \"$1\" = __nccl-topo-probe ] || exit 9\n"
                                        "echo '<system version=\"1\"/>' > \"$NCCL_TOPO_DUMP_FILE\"\n"
                                        "echo \"h:1:2 [0] NCCL INFO NVLS=$NCCL_NVLS_ENABLE\" > \"$NCCL_DEBUG_FILE\"\n"
                                        "echo '{\"nccl_version\":\"2.28.3\",\"device_count\":2,\"init_seconds\":0.5}'\n");
  const Environment env = Environment::from_map({});
  NcclProbeRequest request;
  request.program = probe;
  request.env = &env;
  const NcclProbeResult result = run_nccl_probe(request);
  EXPECT_EQ(result.status, "ok") << result.reason;
  EXPECT_EQ(result.nccl_version, "2.28.3");
  EXPECT_EQ(result.device_count, 2);
  EXPECT_DOUBLE_EQ(result.init_seconds, 0.5);
  EXPECT_EQ(result.dump_xml, "<system version=\"1\"/>\n");
  EXPECT_EQ(result.log, "h:1:2 [0] NCCL INFO NVLS=0\n");
}

TEST(DiscoverNcclProbe, AFailingChildIsDataNotACrash) {
  test::TempDir dir;
  const std::string probe =
      write_probe(dir, "echo 'linkscope: error: NCCL library not found: dlopen(libnccl.so.2) failed' >&2\nexit 3\n");
  NcclProbeRequest request;
  request.program = probe;
  const NcclProbeResult result = run_nccl_probe(request);
  EXPECT_EQ(result.status, "failed");
  EXPECT_EQ(result.reason, "NCCL library not found: dlopen(libnccl.so.2) failed");
  EXPECT_TRUE(result.dump_xml.empty());

  const std::string slow = write_probe(dir, "sleep 30\n");
  request.program = slow;
  request.timeout_seconds = 0.3;
  const NcclProbeResult timed_out = run_nccl_probe(request);
  EXPECT_EQ(timed_out.status, "timeout");
  EXPECT_LT(timed_out.wall_seconds, 10.0);
}

}  // namespace
}  // namespace linkscope::discover
