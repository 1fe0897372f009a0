// `linkscope topo` on a machine without a usable NVIDIA driver (this build machine; elsewhere the driver is
// hidden with LINKSCOPE_NVML_LIBRARY pointing at a missing file).
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "unit/discover_snapshot.hpp"

namespace linkscope {
namespace {

using test::run_command;

const std::vector<std::string> kNoDriver = {"LINKSCOPE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1"};

bool one_line(const std::string& text) { return !text.empty() && text.find('\n') == text.size() - 1; }

TEST(DiscoverTopoCli, NoDriverShowsSysfsThenOneErrorLineAndExitsThree) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const auto result = run_command(LINKSCOPE_BINARY, {"topo", "--sysfs-root", snapshot.root()}, kNoDriver);
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_NE(result.out.find("PCI display devices (class 0x03):"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("0000:00:06.0  0x030200  0x10de  0x2335"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("node 0: CPUs 0-31"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("eth0"), std::string::npos) << result.out;
  EXPECT_TRUE(one_line(result.err)) << result.err;
  EXPECT_EQ(result.err.rfind("linkscope: error: NVIDIA driver unavailable: dlopen(/nonexistent/libnvidia-ml.so.1) failed", 0), 0u)
      << result.err;
}

TEST(DiscoverTopoCli, NoDriverJsonIsStillARunDocument) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const auto result = run_command(LINKSCOPE_BINARY, {"topo", "--sysfs-root", snapshot.root(), "--format", "json"}, kNoDriver);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_TRUE(one_line(result.err)) << result.err;
  const auto run = nlohmann::json::parse(result.out);
  EXPECT_EQ(run["config"]["subcommand"], "topo");
  const auto& system = run["system"];
  EXPECT_FALSE(system["driver"]["available"].get<bool>());
  EXPECT_NE(system["driver"]["reason"].get<std::string>().find("/nonexistent"), std::string::npos);
  EXPECT_EQ(system["pci_display_devices"].size(), 2u);
  EXPECT_EQ(system["nics"][0]["bus"], "virtio");
  EXPECT_EQ(system["nccl_topology"]["status"], "skipped");
  EXPECT_TRUE(system["gpus"].empty());
}

TEST(DiscoverTopoCli, LiveMachineWithoutDriverExitsThreeQuickly) {
  // With the NCCL child too: it fails (no GPU) and that is reported, not fatal beyond the driver's exit 3.
  for (const auto& args : {std::vector<std::string>{"topo", "--no-nccl"}, std::vector<std::string>{"topo"}}) {
    const auto result = run_command(LINKSCOPE_BINARY, args, kNoDriver, 120);
    EXPECT_EQ(result.exit_code, 3) << result.err;
    EXPECT_TRUE(one_line(result.err)) << result.err;
    EXPECT_NE(result.out.find("linkscope topo: sysfs only"), std::string::npos) << result.out;
  }
}

TEST(DiscoverTopoCli, DumpXmlWithoutGpusIsADeviceError) {
  test::TempDir dir;
  const std::string target = dir.path() + "/topo.xml";
  const auto result = run_command(LINKSCOPE_BINARY, {"topo", "--no-nccl", "--dump-xml", target}, kNoDriver);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_TRUE(one_line(result.err)) << result.err;
  EXPECT_NE(result.err.find(target), std::string::npos) << result.err;
  EXPECT_FALSE(std::filesystem::exists(target));
}

TEST(DiscoverTopoCli, LiveFlagsDoNotMixWithXml) {
  const auto result = run_command(LINKSCOPE_BINARY, {"topo", "--xml", test::fixture("h200x2/nccl-topo-dump.xml"), "--no-nccl"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(one_line(result.err)) << result.err;
}

TEST(DiscoverTopoCli, NcclProbeIsHiddenAndFailsCleanlyWithoutNccl) {
  const auto help = run_command(LINKSCOPE_BINARY, {"--help"});
  EXPECT_EQ(help.out.find("__nccl-topo-probe"), std::string::npos);
  const auto result = run_command(LINKSCOPE_BINARY, {"__nccl-topo-probe"}, {"LINKSCOPE_NCCL_LIBRARY=/nonexistent/libnccl.so.2"});
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_TRUE(one_line(result.err)) << result.err;
  EXPECT_NE(result.err.find("NCCL library not found"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace linkscope
