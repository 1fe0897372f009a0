// linkscope doctor: saved runs (--from), topology files (--xml), the live path's one-line refusal, report files,
// exit codes (0, 2, 6 with --fail-on).
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

using test::fixture;
using test::read_text;
using test::run_command;

bool one_line(const std::string& text) { return !text.empty() && text.find('\n') == text.size() - 1; }

// Without the NVIDIA driver (NVML pointed at a library that does not exist, as on a build machine) a live doctor
// still writes its report: the finding says what is broken and why, and the exit code says an error was found.
TEST(DoctorCli, LiveRunWithoutDriverReportsDriverUnavailable) {
  test::TempDir dir;
  const auto result = run_command(LINKSCOPE_BINARY, {"doctor", "--quick", "-o", dir.path() + "/r"},
                                  {"LINKSCOPE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1"});
  EXPECT_EQ(result.exit_code, 7) << result.err;
  EXPECT_EQ(result.err.find("linkscope: error:"), std::string::npos) << result.err;
  EXPECT_NE(result.out.find("driver-unavailable"), std::string::npos) << result.out;
  const auto run = nlohmann::json::parse(read_text(dir.path() + "/r/run.json"));
  ASSERT_FALSE(run.at("findings").empty());
  EXPECT_EQ(run.at("findings")[0].at("id"), "driver-unavailable");
  EXPECT_NE(run.at("findings")[0].at("evidence")[0].get<std::string>().find("/nonexistent/libnvidia-ml.so.1"),
            std::string::npos);
  EXPECT_FALSE(run.at("system").at("driver").at("available").get<bool>());
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/r/report.html"));
  // --fail-on none reports and succeeds.
  const auto quiet = run_command(LINKSCOPE_BINARY, {"doctor", "--quick", "-o", dir.path() + "/q", "--fail-on", "none"},
                                 {"LINKSCOPE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
}

TEST(DoctorCli, FromSavedHealthyRunWritesTheReportDirectory) {
  test::TempDir dir;
  const std::string out = dir.path() + "/report";
  const auto result = run_command(LINKSCOPE_BINARY, {"doctor", "--from", fixture("runs/h200x2-healthy.json"), "-o", out});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("Findings: none"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("9 confirmed, 0 refuted"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("report.html"), std::string::npos) << "progress goes to stderr: " << result.err;
  for (const char* file : {"report.html", "report.md", "run.json", "topology.svg", "p2p-heatmap-ce.svg",
                           "collectives.svg", "ladder.svg"}) {
    EXPECT_TRUE(std::filesystem::exists(out + "/" + file)) << file;
  }
  const auto saved = nlohmann::json::parse(read_text(out + "/run.json"));
  EXPECT_EQ(saved.at("findings").size(), 0u);
  EXPECT_GE(saved.at("hypotheses").size(), 9u);  // with host-link-reaches-share and local-copy-reaches-memory-share
}

TEST(DoctorCli, FailOnTurnsWarningsIntoExitSix) {
  test::TempDir dir;
  const std::string run = fixture("runs/h200x2-busy-gpu1.json");
  auto result = run_command(LINKSCOPE_BINARY, {"doctor", "--from", run, "-o", dir.path() + "/a"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("noisy-measurement"), std::string::npos);
  result = run_command(LINKSCOPE_BINARY, {"doctor", "--from", run, "-o", dir.path() + "/b", "--fail-on", "warning"});
  EXPECT_EQ(result.exit_code, 6);
  result = run_command(LINKSCOPE_BINARY, {"doctor", "--from", run, "-o", dir.path() + "/c", "--fail-on", "error"});
  EXPECT_EQ(result.exit_code, 0);
}

TEST(DoctorCli, JsonFormatPrintsTheDiagnosedRun) {
  test::TempDir dir;
  const auto result = run_command(LINKSCOPE_BINARY, {"doctor", "--from", fixture("runs/h200x2-nccl-p2p-disable.json"),
                                                     "-o", dir.path() + "/r", "--format", "json"});
  // NCCL_P2P_DISABLE=1 takes NVLink away from NCCL: an error finding, exit 7.
  ASSERT_EQ(result.exit_code, 7) << result.err;
  const auto run = nlohmann::json::parse(result.out);
  ASSERT_EQ(run.at("findings").size(), 1u);
  EXPECT_EQ(run.at("findings")[0].at("id"), "nccl-env-path-removed");
}

TEST(DoctorCli, BadInputIsAOneLineErrorWithExitTwo) {
  test::TempDir dir;
  const std::string malformed = dir.write("bad.json", "{\n  \"schema_version\": \"1.0\",\n  oops\n}\n");
  const std::string other_major = dir.write("v2.json", "{\"schema_version\": \"2.0\"}\n");
  const std::vector<std::vector<std::string>> cases = {
      {"doctor", "--from", dir.path() + "/missing.json"},
      {"doctor", "--from", malformed},
      {"doctor", "--from", other_major},
      {"doctor", "--from", fixture("runs/h200x2-healthy.json"), "--xml", fixture("topo/azure-ncv4-topo.xml")},
      {"doctor", "--from", fixture("runs/h200x2-healthy.json"), "--env", "NCCL_P2P_DISABLE=1"},
      {"doctor", "--quick", "--full"},
      {"doctor", "--format", "yaml"},
      {"doctor", "--fail-on", "sometimes"},
  };
  for (const auto& args : cases) {
    auto with_output = args;
    with_output.insert(with_output.end(), {"-o", dir.path() + "/out"});
    const auto result = run_command(LINKSCOPE_BINARY, with_output);
    EXPECT_EQ(result.exit_code, 2) << args[1] << " " << args.back() << ": " << result.err;
    EXPECT_TRUE(one_line(result.err)) << result.err;
  }
  EXPECT_NE(run_command(LINKSCOPE_BINARY, {"doctor", "--from", malformed}).err.find("bad.json:3"), std::string::npos);
}

TEST(DoctorCli, UnwritableReportDirectoryIsAnError) {
  test::TempDir dir;
  const std::string file = dir.write("occupied", "x");
  const auto result =
      run_command(LINKSCOPE_BINARY, {"doctor", "--from", fixture("runs/h200x2-healthy.json"), "-o", file + "/sub"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_TRUE(one_line(result.err)) << result.err;
}

// --xml needs the topology model (src/topo). Until this build has it, doctor says so in one line.
class DoctorXml : public ::testing::Test {
 protected:
  void SetUp() override {
    test::TempDir dir;
    const auto probe = run_command(LINKSCOPE_BINARY, {"doctor", "--xml", fixture("topo/azure-ncv4-topo.xml"), "-o",
                                                      dir.path() + "/probe"});
    if (probe.exit_code == 2 && probe.err.find("no topology model") != std::string::npos) {
      GTEST_SKIP() << "this build has no topology model (src/topo): " << probe.err;
    }
  }
};

TEST_F(DoctorXml, HealthyHgxTopologyFileHasNoFinding) {
  test::TempDir dir;
  const auto result = run_command(LINKSCOPE_BINARY, {"doctor", "--xml", fixture("topo/hgx-h200-8gpu-nvswitch-vm-socketnic.xml"),
                                                     "-o", dir.path() + "/r", "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto run = nlohmann::json::parse(result.out);
  EXPECT_EQ(run.at("findings").size(), 0u) << run.at("findings").dump(2);
  EXPECT_FALSE(run.at("model").at("nodes").empty());
  EXPECT_TRUE(run.at("measurements").empty());
}

struct XmlVariant {
  const char* file;
  const char* finding;
  int rank;
  int exit_code;  // 7 when the planted fault is an error (the default --fail-on error), 0 for a warning
};

class DoctorXmlVariant : public DoctorXml, public ::testing::WithParamInterface<XmlVariant> {};

TEST_P(DoctorXmlVariant, FindsThePlantedFaultAndNothingElse) {
  const std::string xml = fixture(std::string("topo-variants/") + GetParam().file);
  if (!std::filesystem::exists(xml)) GTEST_SKIP() << xml << " is not in this checkout (written with src/topo)";
  test::TempDir dir;
  const auto result = run_command(LINKSCOPE_BINARY, {"doctor", "--xml", xml, "-o", dir.path() + "/r", "--format", "json"});
  ASSERT_EQ(result.exit_code, GetParam().exit_code) << result.err;
  const auto findings = nlohmann::json::parse(result.out).at("findings");
  ASSERT_EQ(findings.size(), 1u) << findings.dump(2);
  EXPECT_EQ(findings[0].at("id"), GetParam().finding);
  EXPECT_EQ(findings[0].at("gpus"), nlohmann::json::array({GetParam().rank}));
}

INSTANTIATE_TEST_SUITE_P(Variants, DoctorXmlVariant,
                         ::testing::Values(XmlVariant{"hgx-h200-gpu3-pcie-gen4.xml", "pcie-link-degraded", 3, 0},
                                           XmlVariant{"hgx-h200-gpu5-no-nvlink.xml", "nvlink-missing", 5, 7},
                                           XmlVariant{"hgx-h200-gpu2-17-nvlinks.xml", "nvlink-link-down", 2, 7}));

}  // namespace
}  // namespace linkscope
