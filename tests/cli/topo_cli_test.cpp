// `linkscope topo` end to end: formats, --env, and every kind of bad input (exit 2, one line naming the file).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "topo/nccl_versions.hpp"

namespace linkscope {
namespace {

using test::fixture;
using test::run_command;

const std::string kH200x2 = fixture("h200x2/nccl-topo-dump.xml");
const std::string kLeonardo = fixture("topo/leonardo-booster-4xa100-nvlink-mesh-4nic.xml");

test::CommandResult topo(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  std::vector<std::string> full{"topo"};
  full.insert(full.end(), args.begin(), args.end());
  return run_command(LINKSCOPE_BINARY, full, env, 60);
}

// Exit 2 and exactly one line on stderr: "linkscope: error: <expected_start>...".
void expect_bad_input(const test::CommandResult& result, const std::string& expected_start) {
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(result.err.rfind("linkscope: error: " + expected_start, 0), 0u) << result.err;
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "expected one line: " << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
}

TEST(TopoCli, IsListedInHelp) {
  const auto result = run_command(LINKSCOPE_BINARY, {"--help"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.out.find("topo"), std::string::npos);
}

TEST(TopoCli, TextIsTheDefault) {
  const auto result = topo({"--xml", kLeonardo});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // Without --nccl-version: the newest release modelled.
  EXPECT_EQ(result.out.rfind("NCCL " + topo::newest_modelled_version().text() + " topology model of ", 0), 0u)
      << result.out;
  EXPECT_NE(result.out.find("GPU0   X    NV4   NV4   NV4   PXB   PHB   PHB   PHB"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("not measured bandwidth"), std::string::npos);
  EXPECT_TRUE(result.err.empty()) << result.err;
}

TEST(TopoCli, NcclLogFormat) {
  const auto result = topo({"--xml", kH200x2, "--format", "nccl-log", "--nccl-version", "2.28.9"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("=== System : maxBw 370.8 totalBw 370.8 ===\nCPU/0-ffffffffffffff (1/1/4)\n"),
            std::string::npos);
  EXPECT_NE(result.out.find("P2P GPU/0-60 -> GPU/0-70 : path NVL count 2 bw 370.8 : p2p 1 read 0\n"),
            std::string::npos);
  EXPECT_NE(result.out.find("GDR GPU/0-60 -> NET/0-0 : path PHB count 3 bw 1.2 : read 0 write 0\n"),
            std::string::npos);
}

TEST(TopoCli, JsonIsARunDocumentWithTheModel) {
  const auto result = topo({"--xml", kLeonardo, "--format", "json", "--env", "NCCL_P2P_LEVEL=PIX"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto document = nlohmann::json::parse(result.out);
  EXPECT_EQ(document["schema_version"].get<std::string>().rfind("1.", 0), 0u);
  EXPECT_EQ(document["config"]["subcommand"], "topo");
  const auto& model = document["model"];
  EXPECT_EQ(model["partial"], false);
  EXPECT_EQ(model["env"]["NCCL_P2P_LEVEL"], "PIX");
  EXPECT_EQ(model["p2p_level"], "PIX");
  EXPECT_EQ(model["max_bw"], 80.0);
  EXPECT_EQ(model["p2p"].size(), 16u);
  EXPECT_EQ(model["gdr"].size(), 16u);
  EXPECT_EQ(model["gdr"][1]["path_type"], "PXN");
  EXPECT_EQ(model["gdr"][1]["write_mode"], "Default");
  bool found = false;
  for (const auto& node : model["nodes"]) {
    if (node["id"] == "GPU/0-1d000") {
      found = true;
      EXPECT_EQ(node["link_speed"], "16.0 GT/s PCIe");
      EXPECT_EQ(node["link_width"], "16");
      EXPECT_EQ(node["busid"], "0000:1d:00.0");
      EXPECT_EQ(node["nvlink_count"], 12);
      EXPECT_EQ(node["nvlinks"].size(), 3u);
    }
  }
  EXPECT_TRUE(found);
  // The Run records the environment the model used: the process's NCCL_* variables plus --env.
  EXPECT_EQ(document["environment"]["variables"]["NCCL_P2P_LEVEL"], "PIX");
}

TEST(TopoCli, EnvFromProcessAndFromFlag) {
  // NCCL 2.28.9's hop counts (2.30 adds a DEV hop to every GPU path).
  auto result = topo({"--xml", kH200x2, "--format", "nccl-log", "--nccl-version", "2.28.9"}, {"NCCL_P2P_DISABLE=1"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("NCCL_P2P_DISABLE set by environment to 1\n"), std::string::npos);
  EXPECT_NE(result.out.find("GPU/0-70 (2/48.0/PHB)"), std::string::npos);
  // --env wins over the process environment.
  result = topo({"--xml", kH200x2, "--format", "nccl-log", "--env", "NCCL_P2P_DISABLE=0", "--nccl-version", "2.28.9"},
                {"NCCL_P2P_DISABLE=1"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.find("NCCL_P2P_DISABLE set by environment"), std::string::npos);
  EXPECT_NE(result.out.find("GPU/0-70 (2/370.8/NVL)"), std::string::npos);
  result = topo({"--xml", kLeonardo, "--format", "nccl-log", "--env", "NCCL_NET_GDR_LEVEL=PIX", "--env",
                 "NCCL_PXN_DISABLE=1", "--nccl-version", "2.28.9"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("NCCL_NET_GDR_LEVEL set by environment to PIX\n"
                            "GPU Direct RDMA Disabled for GPU 0 / HCA 0 (distance 5 > 4)\n"),
            std::string::npos)
      << result.out;
}

TEST(TopoCli, UsageErrors) {
  // Without --xml, topo describes the live machine (tests/cli/discover_topo_cli_test.cpp).
  auto result = topo({"--xml", kH200x2, "--env", "NOEQUALS"});
  expect_bad_input(result, "invalid --env 'NOEQUALS'");
  result = topo({"--xml", kH200x2, "--format", "yaml"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("yaml"), std::string::npos);
}

TEST(TopoCli, SkeletonSaysItIsPartial) {
  const auto result = topo({"--xml", fixture("topo/azure-ndv4-topo.xml")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto second_line = result.out.substr(result.out.find('\n') + 1);
  EXPECT_EQ(second_line.rfind("PARTIAL MODEL: a skeleton topology file (NCCL_TOPO_FILE): 8 GPU and 8 NIC", 0), 0u)
      << result.out;
  const auto json = nlohmann::json::parse(topo({"--xml", fixture("topo/azure-ndv4-topo.xml"), "--format", "json"}).out);
  EXPECT_EQ(json["model"]["partial"], true);
  EXPECT_EQ(json["model"]["gpu_slots"], 8);
}

TEST(TopoCli, FileNcclWouldRefuseIsModelledWithANote) {
  test::TempDir dir;
  std::string text = test::read_text(kH200x2);
  text.replace(text.find("  <cpu"), 2, "\t");
  const auto path = dir.write("tabs.xml", text);
  const auto result = topo({"--xml", path, "--nccl-version", "2.28.9"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("note: NCCL 2.28.9 would refuse this file: line 2: a tab between tags"),
            std::string::npos)
      << result.out;
}

TEST(TopoCliBadInput, MissingFile) {
  expect_bad_input(topo({"--xml", "/nonexistent/topo.xml"}),
                   "/nonexistent/topo.xml: cannot open the topology XML file (no such file)");
}

TEST(TopoCliBadInput, Directory) {
  test::TempDir dir;
  expect_bad_input(topo({"--xml", dir.path()}), dir.path() + ": not a regular file (a directory)");
}

TEST(TopoCliBadInput, EmptyFile) {
  test::TempDir dir;
  const auto path = dir.write("empty.xml", "");
  expect_bad_input(topo({"--xml", path}), path + ":1: no XML element found (empty file?)");
}

TEST(TopoCliBadInput, MalformedXml) {
  test::TempDir dir;
  const auto path = dir.write("bad.xml", "<system version=\"1\">\n  <cpu numaid=\"0\">\n  </pci>\n</system>\n");
  expect_bad_input(topo({"--xml", path}), path + ":3: malformed XML: ");
}

TEST(TopoCliBadInput, TruncatedXml) {
  test::TempDir dir;
  const std::string text = test::read_text(kLeonardo);
  const auto path = dir.write("cut.xml", text.substr(0, text.size() / 2));
  const auto result = topo({"--xml", path});
  expect_bad_input(result, path + ":");
  EXPECT_NE(result.err.find("truncated?"), std::string::npos) << result.err;
}

TEST(TopoCliBadInput, WrongRootElement) {
  test::TempDir dir;
  const auto path = dir.write("root.xml", "<topology version=\"1\">\n</topology>\n");
  expect_bad_input(topo({"--xml", path}),
                   path + ":1: root element is <topology>; an NCCL topology file starts with <system version=\"1\">");
}

TEST(TopoCliBadInput, WrongVersion) {
  test::TempDir dir;
  const auto path = dir.write("v2.xml", "<system version=\"2\">\n</system>\n");
  expect_bad_input(topo({"--xml", path}), path + ":1: <system version=\"2\">: NCCL reads topology XML version 1 only");
}

TEST(TopoCliBadInput, MissingRequiredAttribute) {
  test::TempDir dir;
  std::string text = test::read_text(kH200x2);
  text.replace(text.find(" sm=\"90\""), 8, "");
  const auto path = dir.write("nosm.xml", text);
  expect_bad_input(topo({"--xml", path}),
                   path + ":4: <gpu> has no sm attribute (NCCL: Attribute sm of node gpu not found)");
}

TEST(TopoCliBadInput, NonNumericAttribute) {
  test::TempDir dir;
  std::string text = test::read_text(kH200x2);
  text.replace(text.find("count=\"18\""), 10, "count=\"many\"");
  const auto path = dir.write("count.xml", text);
  expect_bad_input(topo({"--xml", path}), path + ":5: <nvlink count=\"many\">: not a number");
}

TEST(TopoCliBadInput, NegativeCount) {
  test::TempDir dir;
  std::string text = test::read_text(kH200x2);
  text.replace(text.find("count=\"18\""), 10, "count=\"-18\"");
  const auto path = dir.write("negative.xml", text);
  expect_bad_input(topo({"--xml", path}), path + ":5: <nvlink count=\"-18\">: must not be negative");
}

TEST(TopoCliBadInput, BinaryGarbage) {
  test::TempDir dir;
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage.push_back(static_cast<char>((i * 7919 + 13) % 256));
  const auto path = dir.write("garbage.bin", garbage);
  const auto result = topo({"--xml", path});
  expect_bad_input(result, path + ":");
  EXPECT_NE(result.err.find("binary data"), std::string::npos) << result.err;
  const auto no_nul = dir.write("garbage2.bin", std::string(100, '\xff'));
  expect_bad_input(topo({"--xml", no_nul}), no_nul + ":1: ");
}

TEST(TopoCliBadInput, DeepNesting) {
  test::TempDir dir;
  std::string text = "<system version=\"1\">\n";
  for (int i = 0; i < 10000; ++i) text += "<pci>";
  for (int i = 0; i < 10000; ++i) text += "</pci>";
  text += "\n</system>\n";
  const auto path = dir.write("deep.xml", text);
  expect_bad_input(topo({"--xml", path}), path + ":2: elements nested deeper than 64 levels");
}

TEST(TopoCliBadInput, VeryLargeFile) {
  test::TempDir dir;
  const auto path = dir.write("large.xml", "");
  ASSERT_EQ(::truncate(path.c_str(), 17 * 1024 * 1024), 0);  // sparse: nothing is written
  expect_bad_input(topo({"--xml", path}),
                   path + ": 17825792 bytes is too large for a topology XML file (limit 16 MiB)");
}

TEST(TopoCliBadInput, ExternalEntities) {
  test::TempDir dir;
  const auto path = dir.write("xxe.xml",
                              "<!DOCTYPE system [\n<!ENTITY xxe SYSTEM \"file:///etc/passwd\">\n]>\n"
                              "<system version=\"1\"><cpu numaid=\"&xxe;\" arch=\"x86_64\"/></system>\n");
  expect_bad_input(topo({"--xml", path}),
                   path + ":1: DOCTYPE declarations (DTDs, entities) are not allowed in a topology file");
}

TEST(TopoCliBadInput, OneSidedNvlinkNamesBothGpus) {
  const auto path = fixture("topo-variants/a100x2-one-sided-nvlink.xml");
  expect_bad_input(topo({"--xml", path}),
                   path + ":7: one-sided NVLink: GPU/0-8000 (0000:08:00.0) lists an NVLink to GPU/0-9000 "
                          "(0000:09:00.0), but GPU/0-9000 lists none back");
}

}  // namespace
}  // namespace linkscope

namespace linkscope {
namespace {

using test::fixture;

test::CommandResult topo_command(const std::vector<std::string>& args) {
  std::vector<std::string> full{"topo"};
  full.insert(full.end(), args.begin(), args.end());
  return test::run_command(LINKSCOPE_BINARY, full, {}, 60);
}

// The leonardo node's NICs are GDR-capable: 2.28 prints "GPU 0 / HCA 0 (distance 5 <= 5)", 2.29 names the nodes
// and compares with P2C (6), 2.30.3 prints no per-GPU GDR line at INFO.
TEST(TopoCliVersions, TheVersionAskedForChangesWhatIsModelled) {
  const std::string xml = fixture("topo/leonardo-booster-4xa100-nvlink-mesh-4nic.xml");
  const auto r2289 = topo_command({"--xml", xml, "--format", "nccl-log", "--nccl-version", "2.28.9"});
  ASSERT_EQ(r2289.exit_code, 0) << r2289.err;
  EXPECT_NE(r2289.out.find("GPU Direct RDMA Enabled for GPU 0 / HCA 0 (distance 5 <= 5), read 0 mode Default"),
            std::string::npos);
  const auto r2297 = topo_command({"--xml", xml, "--format", "nccl-log", "--nccl-version", "2.29.7"});
  ASSERT_EQ(r2297.exit_code, 0) << r2297.err;
  EXPECT_NE(r2297.out.find("GPU Direct RDMA Enabled for GPU/0-118784 (rank 0) - NET/0-0 (distance 5 <= 6, read 0, "
                           "mode Default)"),
            std::string::npos)
      << r2297.out;
  EXPECT_EQ(r2297.out.find("/ HCA "), std::string::npos);
}

TEST(TopoCliVersions, TheRunRecordsTheVersionAskedForAndTheOneModelled) {
  const auto result = topo_command({"--xml", fixture("h200x2/nccl-topo-dump.xml"), "--format", "json",
                                    "--nccl-version", "2.29.3"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto model = nlohmann::json::parse(result.out).at("model");
  EXPECT_EQ(model.at("nccl_version"), "2.29.3");
  EXPECT_EQ(model.at("nccl_version_modelled"), "2.29.2");
  EXPECT_EQ(model.at("nccl_version_from"), "--nccl-version");
  EXPECT_FALSE(model.contains("nccl_version_note"));
}

TEST(TopoCliVersions, AReleaseOutsideTheModelledOnesIsModelledByTheNearestAndSaysSo) {
  const auto result = topo_command({"--xml", fixture("h200x2/nccl-topo-dump.xml"), "--nccl-version", "2.22.3"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.rfind("NCCL 2.28.9 (nearest modelled to the asked 2.22.3) topology model of ", 0), 0u)
      << result.out;
  EXPECT_NE(result.out.find("NCCL 2.22.3 is older than every version linkscope models"), std::string::npos)
      << result.out;
}

TEST(TopoCliVersions, DoctorOnAFileGivesTheInfoFinding) {
  test::TempDir dir;
  const auto result = test::run_command(LINKSCOPE_BINARY,
                                        {"doctor", "--xml", fixture("h200x2/nccl-topo-dump.xml"), "--nccl-version",
                                         "2.31.2", "-o", dir.path() + "/r", "--format", "json"},
                                        {}, 60);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto run = nlohmann::json::parse(result.out);
  const nlohmann::json* found = nullptr;
  for (const auto& finding : run.at("findings")) {
    if (finding.at("id") == "nccl-version-not-modelled") found = &finding;
  }
  ASSERT_NE(found, nullptr) << result.out.substr(0, 2000);
  EXPECT_EQ(found->at("severity"), "info");
  // The next step models the same file as the release that stood in.
  EXPECT_NE(found->at("next_command").get<std::string>().find(
                "linkscope topo --xml " + fixture("h200x2/nccl-topo-dump.xml") + " --nccl-version " +
                topo::newest_modelled_version().text()),
            std::string::npos)
      << found->dump();
  EXPECT_EQ(run.at("model").at("nccl_version"), "2.31.2");
}

TEST(TopoCliVersions, TextThatIsNoVersionIsAUsageError) {
  const auto result = topo_command({"--xml", fixture("h200x2/nccl-topo-dump.xml"), "--nccl-version", "latest"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(result.err.rfind("linkscope: error: --nccl-version latest: expected a version such as 2.29.7", 0), 0u)
      << result.err;
}

TEST(TopoCliVersions, LiveCommandsModelTheLoadedNcclNotAnOption) {
  const auto result = topo_command({"--nccl-version", "2.29.7"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("--nccl-version models a file (--xml)"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace linkscope
