// Issue 13's hostile inputs and outputs, each as the user met it: the CLI must refuse with one line and exit 2
// before any device work, never hang, never lose an input file, never report success having written nothing.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

using test::CommandResult;
using test::fixture;
using test::run_command;

constexpr int kUsage = 2;  // README "Exit codes"

bool one_line(const std::string& text) { return !text.empty() && text.find('\n') == text.size() - 1; }

// `args` with standard output on /dev/full (a write there fails with ENOSPC).
CommandResult run_to_dev_full(const std::vector<std::string>& args) {
  std::vector<std::string> shell{"-c", "exec \"$0\" \"$@\" >/dev/full", LINKSCOPE_BINARY};
  shell.insert(shell.end(), args.begin(), args.end());
  return run_command("/bin/sh", shell);
}

struct UsageCase {
  std::vector<std::string> args;
  std::string named;  // what the one-line message must name
};

void expect_usage_errors(const std::vector<UsageCase>& cases) {
  for (const auto& c : cases) {
    std::string line;
    for (const auto& a : c.args) line += "'" + a + "' ";
    // No driver on the CI machine: anything that got past the checks would try CUDA and exit 3.
    const auto result = run_command(LINKSCOPE_BINARY, c.args, {"CUDA_VISIBLE_DEVICES="}, 60);
    EXPECT_EQ(result.exit_code, kUsage) << line << "\n" << result.err;
    EXPECT_TRUE(one_line(result.err)) << line << "\n" << result.err;
    EXPECT_NE(result.err.find(c.named), std::string::npos) << line << "\n" << result.err;
  }
}

TEST(HardeningCli, NotANumberIsRefusedForEverySecondsOption) {
  expect_usage_errors({{{"coll", "-T", "nan"}, "nan"},
                       {{"coll", "--timeout", "nan"}, "nan"},
                       {{"coll", "--max-time", "nan"}, "nan"},
                       {{"ladder", "-T", "nan"}, "nan"},
                       {{"ladder", "--max-time", "nan"}, "nan"},
                       {{"doctor", "--timeout", "nan"}, "nan"},
                       {{"topo", "--timeout", "nan"}, "nan"},
                       {{"p2p", "--max-time", "nan"}, "nan"},
                       {{"coll", "-T", "inf"}, "inf"}});
}

TEST(HardeningCli, NegativeCpuNodeAndEmptyListsAreRefused) {
  expect_usage_errors({{{"p2p", "--cpu-node", "-5"}, "--cpu-node"},
                       {{"patterns", "--cpu-node", "-5"}, "--cpu-node"},
                       {{"p2p", "-d", ""}, "-d"},
                       {{"patterns", "-d", ""}, "-d"},
                       {{"topo", "--xml", ""}, "--xml"}});
}

std::size_t longest_digit_run(const std::string& text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = std::isdigit(static_cast<unsigned char>(c)) ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

TEST(HardeningCli, RangeMessagesPrintTheLimitNotAHugeNumber) {
  const std::string huge(300, '9');
  const std::vector<UsageCase> cases = {
      {{"coll", "-T", "1e300"}, "at most"},          {{"coll", "--max-time", "-1e300"}, "at most"},
      {{"p2p", "--max-time", "1e300"}, "at most"},   {{"p2p", "--target-ci", "1e300"}, "between 0 and 1"},
      {{"p2p", "-b", "1e300"}, "-b"},                {{"p2p", "-b", huge}, "at most 18446744073709551615 bytes"},
      {{"coll", "-n", huge}, "(300 digits)"},        {{"coll", "-r", huge}, "0 to 1048576"}};
  expect_usage_errors(cases);
  for (const auto& c : cases) {
    const auto result = run_command(LINKSCOPE_BINARY, c.args, {"CUDA_VISIBLE_DEVICES="}, 60);
    // A 300-digit number has no place in a message: what was typed is clipped, the limit is printed.
    EXPECT_LE(longest_digit_run(result.err), 20u) << result.err;
    EXPECT_LT(result.err.size(), 240u) << result.err;
  }
}

TEST(HardeningCli, CompareThresholdAcceptsZeroToOneHundredPercent) {
  const std::string a = fixture("runs/h200x2-healthy.json");
  const std::string b = fixture("runs/h200x2-rerun.json");
  // 0% flags every change beyond the noise (exit 6 is a verdict, not a refusal); at 100% nothing regressed here.
  const auto zero = run_command(LINKSCOPE_BINARY, {"compare", a, b, "--threshold", "0%"});
  EXPECT_TRUE(zero.exit_code == 0 || zero.exit_code == 6) << zero.err;
  for (const char* threshold : {"100%", "100"}) {
    const auto result = run_command(LINKSCOPE_BINARY, {"compare", a, b, "--threshold", threshold});
    EXPECT_EQ(result.exit_code, 0) << threshold << "\n" << result.err;
  }
  const auto over = run_command(LINKSCOPE_BINARY, {"compare", a, b, "--threshold", "101%"});
  EXPECT_EQ(over.exit_code, kUsage);
  EXPECT_NE(over.err.find("100"), std::string::npos) << over.err;
}

TEST(HardeningCli, UnwritableOutputIsRefusedBeforeMeasuring) {
  // Without a GPU a measurement would exit 3; exit 2 naming the path says the check came first.
  expect_usage_errors({{{"coll", "--output", "/nonexistent/dir/x.json"}, "/nonexistent/dir"},
                       {{"p2p", "--output", "/nonexistent/dir/x.json"}, "/nonexistent/dir"},
                       {{"patterns", "--output", "/nonexistent/dir/x.json"}, "/nonexistent/dir"},
                       {{"ladder", "--output", "/nonexistent/dir/x.json"}, "/nonexistent/dir"},
                       {{"topo", "--dump-xml", "/nonexistent/dir/x.xml"}, "/nonexistent/dir"}});
}

TEST(HardeningCli, LadderBadGpuCountAndSystemFileAreUsageErrors) {
  expect_usage_errors({{{"ladder", "-g", "100000"}, "-g"},
                       {{"ladder", "-g", "0"}, "-g"},
                       {{"ladder", "--system", "/nonexistent.json"}, "/nonexistent.json"}});
}

TEST(HardeningCli, DoctorXmlQuickIsRefusedNotIgnored) {
  expect_usage_errors({{{"doctor", "--xml", fixture("topo/hgx-h200-8gpu-nvswitch-vm-socketnic.xml"), "--quick"},
                        "--quick"}});
}

TEST(HardeningCli, DevicesAndDirectoriesAsRunFilesAreOneLineErrors) {
  test::TempDir dir;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report", "/dev/zero"},
        {"compare", "/dev/zero", fixture("runs/h200x2-healthy.json")},
        {"doctor", "--from", "/dev/zero", "-o", dir.path() + "/out"},
        {"report", dir.path()}}) {
    const auto result = run_command(LINKSCOPE_BINARY, args, {}, 30);
    EXPECT_EQ(result.exit_code, kUsage) << args[0] << " " << args[1] << "\n" << result.err;
    EXPECT_TRUE(one_line(result.err)) << result.err;
    EXPECT_NE(result.err.find("regular file"), std::string::npos) << result.err;
  }
}

TEST(HardeningCli, HostileRunValuesAreUsageErrorsNamingFileAndField) {
  test::TempDir dir;
  const auto healthy = nlohmann::json::parse(test::read_text(fixture("runs/h200x2-healthy.json")));
  struct Edit {
    std::string name, named;
    void (*apply)(nlohmann::json&);
  };
  const std::vector<Edit> edits = {
      {"string-bandwidth", "bandwidth_gbps",
       [](nlohmann::json& d) { d["measurements"]["p2p"]["points"][0]["bandwidth_gbps"]["median"] = "fast"; }},
      {"points-none", "points", [](nlohmann::json& d) { d["measurements"]["p2p"]["points"] = "none"; }},
      {"gpus-five", "gpus", [](nlohmann::json& d) { d["system"]["gpus"] = 5; }},
      {"negative-bandwidth", "bandwidth_gbps",
       [](nlohmann::json& d) { d["measurements"]["p2p"]["points"][0]["bandwidth_gbps"]["median"] = -3.5; }},
  };
  for (const auto& edit : edits) {
    auto document = healthy;
    edit.apply(document);
    const std::string path = dir.write(edit.name + ".json", document.dump(1));
    for (const char* command : {"report", "doctor"}) {
      std::vector<std::string> args{command, path};
      if (std::string(command) == "doctor") args = {"doctor", "--from", path, "-o", dir.path() + "/out-" + edit.name};
      const auto result = run_command(LINKSCOPE_BINARY, args);
      EXPECT_EQ(result.exit_code, kUsage) << edit.name << " " << command << "\n" << result.err;
      EXPECT_NE(result.err.find(path + ":"), std::string::npos) << edit.name << "\n" << result.err;
      EXPECT_NE(result.err.find(edit.named), std::string::npos) << edit.name << "\n" << result.err;
    }
  }
  // A number JSON cannot hold in a double: the file and line, not "internal error".
  const std::string huge = dir.write("huge.json", "{\n\"schema_version\": 1e400\n}\n");
  const auto result = run_command(LINKSCOPE_BINARY, {"report", huge});
  EXPECT_EQ(result.exit_code, kUsage) << result.err;
  EXPECT_NE(result.err.find(huge + ":"), std::string::npos) << result.err;
}

TEST(HardeningCli, ReportRefusesToWriteOverItsInput) {
  test::TempDir dir;
  const std::string original = test::read_text(fixture("runs/h200x2-healthy.json"));
  const std::string run = dir.write("R.json", original);
  const auto result = run_command(LINKSCOPE_BINARY, {"report", run, "--format", "html", "--output", run});
  EXPECT_EQ(result.exit_code, kUsage) << result.err;
  EXPECT_TRUE(one_line(result.err)) << result.err;
  EXPECT_EQ(test::read_text(run), original);
  // The report directory holding the input: run.json is the input, so the directory write is refused too.
  const auto into = run_command(LINKSCOPE_BINARY, {"report", run, "--output", dir.path() + "/"});
  EXPECT_EQ(test::read_text(run), original);
  (void)into;
}

TEST(HardeningCli, DoctorOverAnEarlierReportLeavesNoStaleCharts) {
  test::TempDir dir;
  const std::string out = dir.path() + "/report";
  auto result = run_command(LINKSCOPE_BINARY, {"doctor", "--from", fixture("runs/h200x2-busy-gpu1.json"), "-o", out});
  ASSERT_LE(result.exit_code, 7) << result.err;  // 7: the run has an error finding; the report is written
  ASSERT_TRUE(std::filesystem::exists(out + "/collectives.svg")) << result.err;
  // A chart of the user's own beside the report is not linkscope's to remove (docs/reports.md).
  const std::string users = dir.write("report/p2p-old-chart.svg", "<svg/>");
  result = run_command(LINKSCOPE_BINARY,
                       {"doctor", "--from", fixture("runs/hgx-h200-8gpu-synthetic.json"), "-o", out});
  EXPECT_LE(result.exit_code, 7) << result.err;
  EXPECT_FALSE(std::filesystem::exists(out + "/collectives.svg")) << "the 8-GPU model run draws no collectives";
  EXPECT_TRUE(std::filesystem::exists(out + "/topology.svg"));
  EXPECT_EQ(test::read_text(users), "<svg/>");
  EXPECT_TRUE(std::filesystem::exists(out + "/report.html"));
}

TEST(HardeningCli, WriteErrorsOnStandardOutputAreNotSuccess) {
  test::TempDir dir;
  const std::string run = fixture("runs/h200x2-healthy.json");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"version"},
        {"report", run},
        {"report", run, "--format", "md"},
        {"compare", run, fixture("runs/h200x2-rerun.json")},
        {"topo", "--xml", fixture("topo/hgx-h200-8gpu-nvswitch-vm-socketnic.xml")},
        {"doctor", "--from", run, "-o", dir.path() + "/report"},
        {"doctor", "--from", run, "-o", dir.path() + "/report-json", "--format", "json"}}) {
    const auto result = run_to_dev_full(args);
    EXPECT_EQ(result.exit_code, kUsage) << args[0] << "\n" << result.err;
    EXPECT_TRUE(one_line(result.err)) << args[0] << "\n" << result.err;
    EXPECT_NE(result.err.find("standard output"), std::string::npos) << result.err;
  }
}

TEST(HardeningCli, SysfsRootRelativeAndMissing) {
  const auto missing = run_command(LINKSCOPE_BINARY, {"topo", "--sysfs-root", "/nonexistent-root"});
  EXPECT_EQ(missing.exit_code, kUsage) << missing.err;
  EXPECT_NE(missing.err.find("/nonexistent-root"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace linkscope
