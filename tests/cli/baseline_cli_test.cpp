// linkscope baseline, and --baseline on doctor --from and compare: a SYNTHETIC fleet of saved runs (a real run
// copied as other hosts, its numbers scaled) judges a slow host outside and a healthy one within; bad input is one
// line and exit 2.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/synthetic_fleet.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

using test::fixture;
using test::run_command;

struct Fleet {
  test::TempDir dir;
  std::vector<std::string> runs;
  std::string slow, healthy, baseline;
};

// Six hosts within +-2% (SYNTHETIC), a healthy seventh and one 15% slower, and the baseline of the six.
void make_fleet(Fleet& fleet) {
  const nlohmann::json run = nlohmann::json::parse(test::read_text(fixture("runs/h200x2-healthy.json")));
  const double factors[] = {0.98, 0.99, 1.0, 1.0, 1.01, 1.02};
  for (int i = 0; i < 6; ++i) {
    const std::string host = "node-" + std::to_string(i);
    fleet.runs.push_back(fleet.dir.write(host + ".json", test::synthetic_host(run, host, factors[i]).dump()));
  }
  fleet.healthy = fleet.dir.write("node-h.json", test::synthetic_host(run, "node-h", 1.003).dump());
  fleet.slow = fleet.dir.write("node-slow.json", test::synthetic_host(run, "node-slow", 0.85).dump());
  fleet.baseline = fleet.dir.path() + "/baseline.json";
  std::vector<std::string> args = {"baseline"};
  args.insert(args.end(), fleet.runs.begin(), fleet.runs.end());
  args.insert(args.end(), {"-o", fleet.baseline});
  const auto result = run_command(LINKSCOPE_BINARY, args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("6 run(s), 1 machine type(s)"), std::string::npos) << result.err;
}

TEST(BaselineCli, WritesOneTypeWithRobustStatistics) {
  Fleet fleet;
  make_fleet(fleet);
  const auto document = nlohmann::json::parse(test::read_text(fleet.baseline));
  EXPECT_EQ(document.at("format"), "linkscope-baseline");
  ASSERT_EQ(document.at("types").size(), 1u);
  const auto& type = document.at("types")[0];
  EXPECT_EQ(type.at("hosts").size(), 6u);
  ASSERT_FALSE(type.at("metrics").empty());
  for (const auto& metric : type.at("metrics")) {
    EXPECT_LE(metric.at("p5").get<double>(), metric.at("median").get<double>());
    EXPECT_GE(metric.at("p95").get<double>(), metric.at("median").get<double>());
    EXPECT_GE(metric.at("mad").get<double>(), 0);
    EXPECT_GE(metric.at("count").get<int>(), 6);
  }
}

TEST(BaselineCli, DoctorFromNamesTheSlowHostAndPassesTheHealthyOne) {
  Fleet fleet;
  make_fleet(fleet);
  const auto slow = run_command(LINKSCOPE_BINARY, {"doctor", "--from", fleet.slow, "--baseline", fleet.baseline,
                                                   "-o", fleet.dir.path() + "/slow-report", "--fail-on", "warning"});
  EXPECT_EQ(slow.exit_code, 6) << slow.out << slow.err;
  EXPECT_NE(slow.out.find("outside-fleet-baseline"), std::string::npos) << slow.out;
  EXPECT_NE(slow.out.find("Fleet ("), std::string::npos) << slow.out;
  EXPECT_NE(slow.out.find("node-slow GPU0->GPU1"), std::string::npos) << slow.out;
  const std::string html = test::read_text(fleet.dir.path() + "/slow-report/report.html");
  EXPECT_NE(html.find("id=\"fleet\""), std::string::npos);
  EXPECT_NE(test::read_text(fleet.dir.path() + "/slow-report/report.md").find("## Fleet"), std::string::npos);
  const auto saved = nlohmann::json::parse(test::read_text(fleet.dir.path() + "/slow-report/run.json"));
  EXPECT_GT(saved.at("fleet").at("metrics").size(), 0u);

  const auto healthy = run_command(LINKSCOPE_BINARY, {"doctor", "--from", fleet.healthy, "--baseline", fleet.baseline,
                                                      "-o", fleet.dir.path() + "/ok-report", "--fail-on", "warning"});
  EXPECT_EQ(healthy.exit_code, 0) << healthy.out << healthy.err;
  EXPECT_EQ(healthy.out.find("outside-fleet-baseline"), std::string::npos) << healthy.out;
  EXPECT_NE(healthy.out.find(", 0 outside the fleet"), std::string::npos) << healthy.out;
}

TEST(BaselineCli, DoctorSaysWhenTheMachineTypeIsNotInTheBaseline) {
  Fleet fleet;
  make_fleet(fleet);
  const auto result =
      run_command(LINKSCOPE_BINARY, {"doctor", "--from", fixture("runs/hgx-h200-8gpu-synthetic.json"), "--baseline",
                                     fleet.baseline, "-o", fleet.dir.path() + "/hgx"});
  EXPECT_NE(result.out.find("machine type not in the baseline"), std::string::npos) << result.out;
}

TEST(BaselineCli, CompareWithABaselineFailsTheGateOnASlowHost) {
  Fleet fleet;
  make_fleet(fleet);
  const auto slow = run_command(LINKSCOPE_BINARY, {"compare", fleet.runs[2], fleet.slow, "--baseline", fleet.baseline,
                                                   "--threshold", "50%"});
  EXPECT_EQ(slow.exit_code, 6) << slow.out << slow.err;
  EXPECT_NE(slow.out.find("Fleet ("), std::string::npos) << slow.out;
  EXPECT_NE(slow.out.find("node-slow GPU0->GPU1"), std::string::npos) << slow.out;
  // Without --baseline the same pair passes a 50% gate: the fleet is what failed it.
  const auto alone = run_command(LINKSCOPE_BINARY, {"compare", fleet.runs[2], fleet.slow, "--threshold", "50%"});
  EXPECT_EQ(alone.exit_code, 0) << alone.out;
  const auto healthy = run_command(LINKSCOPE_BINARY, {"compare", fleet.runs[2], fleet.healthy, "--baseline",
                                                      fleet.baseline, "--format", "json"});
  EXPECT_EQ(healthy.exit_code, 0) << healthy.out << healthy.err;
  EXPECT_EQ(nlohmann::json::parse(healthy.out).at("fleet").at("type_in_baseline"), true);
}

TEST(BaselineCli, BadInputIsOneLineAndExitTwo) {
  Fleet fleet;
  make_fleet(fleet);
  const std::string not_json = fleet.dir.write("notes.txt", "hello\n");
  const std::string gpuless = fleet.dir.write("gpuless.json", R"({"schema_version": "1.5"})");
  const std::string run = fleet.runs[0];
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"baseline"},                                   // no runs
           {"baseline", not_json},                         // not a run
           {"baseline", fleet.baseline},                   // a baseline given as a run
           {"baseline", run, gpuless},                     // a run without a machine type
           {"doctor", "--from", run, "--baseline", run, "-o", fleet.dir.path() + "/x"},  // a run given as baseline
           {"doctor", "--from", run, "--baseline", not_json, "-o", fleet.dir.path() + "/y"},
           {"compare", run, run, "--baseline", "/nonexistent.json"}}) {
    const auto result = run_command(LINKSCOPE_BINARY, args);
    EXPECT_EQ(result.exit_code, 2) << args[0] << " " << args.back() << ": " << result.err;
    EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << result.err;
  }
}

}  // namespace
}  // namespace linkscope
