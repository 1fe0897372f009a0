// The fleet workflow end to end on the CPU, through the same MPI protocol, report and exit codes as a real job: 16
// ranks under a real launcher, each its own host (LINKSCOPE_HOST_PER_RANK=1), measuring through the simulated fabric
// (LINKSCOPE_TEST_FABRIC, the tests' build of the binary). A good night's `cluster` run becomes a baseline
// (`linkscope baseline`); the next night judges the hosts against it (`--isolate --baseline`, the pairs with
// `--baseline`), exports them to Prometheus, and a soak sees a host degrade. The ClusterMpiCli tests run once per
// launcher (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "support/mpi_launcher.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

using nlohmann::json;

constexpr int kRanks = 16;

std::string write_fabric(const test::TempDir& dir, const std::string& name, const std::string& hosts) {
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path) << R"({"default": {"gbps": 50, "latency_us": 1}, "slow_factor": 0.25, "hosts": )" << hosts << "}";
  return path;
}

// `cluster -b SIZE -e SIZE ...` (one size: the simulated fabric takes no time to move it) on `ranks` hosts.
test::CommandResult cluster_job(const test::MpiLauncher& launcher, int ranks, const std::string& fabric,
                                const std::vector<std::string>& extra_args, const std::string& size = "16M") {
  std::vector<std::string> args = {"cluster", "-b", size, "-e", size, "--max-time", "0.05"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  const std::vector<std::string> env = {"LINKSCOPE_HOST_PER_RANK=1", "LINKSCOPE_TEST_FABRIC=" + fabric,
                                        std::string("LINKSCOPE_NVML_LIBRARY=") + LINKSCOPE_FAKE_NVML,
                                        "CUDA_VISIBLE_DEVICES=", "LINKSCOPE_TELEMETRY=off"};
  std::vector<test::RankCommand> commands(static_cast<std::size_t>(ranks),
                                          test::RankCommand{env, LINKSCOPE_SEAMED_BINARY, args});
  return launcher.run(commands, {"LINKSCOPE_HOST_NAME", "LINKSCOPE_HOST_PER_RANK"}, 300);
}

int rank_of(const std::string& host) { return std::stoi(host.substr(host.rfind("-rank") + 5)); }

bool has_finding(const json& run, const std::string& id, const std::string& severity) {
  for (const auto& finding : run["findings"]) {
    if (finding["id"] == id && finding["severity"] == severity) return true;
  }
  return false;
}

// Night 1: every host good; its run is the baseline. Night 2: rank 11 slow, judged against the baseline alone (no
// --expect-gbps): named in log2 runs, the fleet section and the Prometheus textfile name it, --fail-on warning fails.
TEST(ClusterMpiCli, IsolateAgainstABaselineOfAnEarlierNightNamesTheSlowHost) {
  LINKSCOPE_REQUIRE_LAUNCHER(launcher);
  test::TempDir dir;
  const std::string good = dir.path() + "/night1.json";
  const auto night1 = cluster_job(launcher, kRanks, write_fabric(dir, "good.json", "[]"),
                                  {"--isolate", "--expect-gbps", "40", "-q", "--output", good});
  ASSERT_EQ(night1.exit_code, 0) << night1.err;
  const std::string baseline = dir.path() + "/baseline.json";
  const auto built = test::run_command(LINKSCOPE_BINARY, {"baseline", good, "-o", baseline});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_NE(test::read_text(baseline).find("all_reduce one GPU per host at 16 MiB"), std::string::npos);

  const std::string bad = dir.path() + "/night2.json", prom = dir.path() + "/night2.prom";
  const auto night2 =
      cluster_job(launcher, kRanks, write_fabric(dir, "slow.json", R"([{"rank": 11, "slow": true}])"),
                  {"--isolate", "--baseline", baseline, "--fail-on", "warning", "--output", bad, "--prometheus", prom});
  EXPECT_EQ(night2.exit_code, 6) << night2.err;  // warnings (slow host, outside the fleet) with --fail-on warning
  const json run = json::parse(test::read_text(bad));
  const json& isolation = run["measurements"]["cross_host"]["isolation"];
  EXPECT_EQ(isolation["expected_from"].get<std::string>().rfind("baseline " + baseline + ": all_reduce one GPU per host", 0),
            0u)
      << isolation["expected_from"];
  EXPECT_NEAR(isolation["expected_gbps"].get<double>(), 50, 0.1);
  EXPECT_LE(isolation["run_count"].get<int>(), 5);  // ceil(log2 16) + 1
  for (const auto& host : isolation["hosts"]) {
    EXPECT_EQ(host["verdict"], rank_of(host["host"]) == 11 ? "slow" : "good") << host["host"];
  }
  EXPECT_NE(night2.out.find("expected from baseline " + baseline), std::string::npos) << night2.out;
  // The fleet: every group with rank 11 is outside the baseline; the finding and the text say so.
  int outside = 0;
  for (const auto& metric : run["fleet"]["metrics"]) {
    if (metric["category"] == "cross-host" && metric["outside"].get<bool>()) ++outside;
  }
  EXPECT_EQ(outside, isolation["run_count"].get<int>()) << run["fleet"].dump();  // one group with it per run
  EXPECT_TRUE(has_finding(run, "outside-fleet-baseline", "warning")) << run["findings"].dump();
  EXPECT_TRUE(has_finding(run, "cross-host-slow", "warning")) << run["findings"].dump();
  EXPECT_NE(night2.out.find("outside-fleet-baseline"), std::string::npos) << night2.out;
  // Prometheus names the host itself, and the finding gauges are set.
  const std::string text = test::read_text(prom);
  const std::string slow_host = run["measurements"]["cross_host"]["hosts"][11];
  EXPECT_NE(text.find("linkscope_isolation_host_verdict{host=\"" + slow_host + "\",verdict=\"slow\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rule=\"outside-fleet-baseline\",severity=\"warning\"} 1\n"), std::string::npos) << text;
}

// The pairs judged against a baseline of the same matrix: the pairs of the slow host are outside, --fail-on warning
// fails, and without it the run passes (findings are warnings).
TEST(ClusterMpiCli, PairsAgainstABaselineNameTheSlowHostsPairs) {
  LINKSCOPE_REQUIRE_LAUNCHER(launcher);
  test::TempDir dir;
  const std::string good = dir.path() + "/good.json";
  ASSERT_EQ(cluster_job(launcher, 4, write_fabric(dir, "good.json", "[]"), {"-q", "--no-all-reduce", "--output", good})
                .exit_code,
            0);
  const std::string baseline = dir.path() + "/baseline.json";
  ASSERT_EQ(test::run_command(LINKSCOPE_BINARY, {"baseline", good, "-o", baseline}).exit_code, 0);
  const std::string fabric = write_fabric(dir, "slow.json", R"([{"rank": 2, "slow": true}])");
  const std::string judged = dir.path() + "/judged.json";
  const auto gate = cluster_job(launcher, 4, fabric,
                                {"-q", "--no-all-reduce", "--baseline", baseline, "--fail-on", "warning", "--output", judged});
  EXPECT_EQ(gate.exit_code, 6) << gate.err;
  const json run = json::parse(test::read_text(judged));
  int outside = 0, within = 0;
  for (const auto& metric : run["fleet"]["metrics"]) {
    if (metric["category"] != "cross-host") continue;
    const bool with_slow = metric["subject"].get<std::string>().find("-rank2") != std::string::npos;
    EXPECT_EQ(metric["outside"].get<bool>(), with_slow) << metric.dump();
    ++(with_slow ? outside : within);
  }
  EXPECT_EQ(outside, 3);  // rank 2 meets each of the 3 others once
  EXPECT_EQ(within, 3);
  EXPECT_NE(gate.out.find("Fleet"), std::string::npos) << gate.out;
  const auto plain = cluster_job(launcher, 4, fabric, {"-q", "--no-all-reduce", "--baseline", baseline});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  const auto nagios = cluster_job(launcher, 4, fabric, {"-q", "--no-all-reduce", "--exit-codes", "nagios"});
  EXPECT_EQ(nagios.exit_code, 1) << nagios.err;  // WARNING: a slow host
}

// Nothing to judge the groups against (no --expect-gbps, no baseline, no NIC known near the GPUs): one line, exit 2,
// and no collective runs.
TEST(ClusterMpiCli, IsolateWithoutAnyExpectationSaysWhatIsMissing) {
  LINKSCOPE_REQUIRE_LAUNCHER(launcher);
  test::TempDir dir;
  const auto result = cluster_job(launcher, 2, write_fabric(dir, "f.json", "[]"), {"--isolate", "-q"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("linkscope: error: --isolate has nothing to judge the groups against: no --expect-gbps and "
                            "no --baseline, and the NICs' rate cannot stand in: "),
            std::string::npos)
      << result.err;
  EXPECT_EQ(result.err.find("isolation run 1"), std::string::npos) << result.err;
}

// A soak of the isolation: rank 5 degrades at its third collective (the third cycle), the soak sees the step in the
// every-host all_reduce and keeps a complete run on disk after every cycle. 64 MiB: the soak follows bandwidths from
// bandwidth_compare_min_bytes up.
TEST(ClusterMpiCli, SoakSeesTheStepWhenAHostDegrades) {
  LINKSCOPE_REQUIRE_LAUNCHER(launcher);
  test::TempDir dir;
  const std::string output = dir.path() + "/soak.json";
  const auto result =
      cluster_job(launcher, kRanks, write_fabric(dir, "degrading.json", R"([{"rank": 5, "slow_from": 3}])"),
                  {"--isolate", "--expect-gbps", "40", "--soak", "6s", "--fail-on", "warning", "--output", output}, "64M");
  EXPECT_EQ(result.exit_code, 6) << result.err;
  const json run = json::parse(test::read_text(output));
  const json& soak = run["measurements"]["soak"];
  ASSERT_GE(soak["cycles"].size(), 3u) << result.err;
  EXPECT_NE(soak["ended"].get<std::string>().find("duration reached"), std::string::npos) << soak["ended"];
  for (const auto& cycle : soak["cycles"]) {
    double every_host = 0;
    for (const auto& [key, value] : cycle["metrics"].items()) {
      if (key.rfind("linkscope_isolation_every_host_bus_bandwidth_bytes_per_second{", 0) == 0) every_host = value;
    }
    const bool degraded = cycle["index"].get<int>() >= 2;
    EXPECT_NEAR(every_host, degraded ? 12.5e9 : 50e9, 0.5e9) << cycle.dump();
  }
  bool step = false;
  for (const auto& finding : run["findings"]) {
    if (finding["id"] != "soak-metric-changed") continue;
    for (const auto& line : finding["evidence"]) step = step || line.get<std::string>().find("step") != std::string::npos;
  }
  EXPECT_TRUE(step) << run["findings"].dump();
  for (const auto& host : run["measurements"]["cross_host"]["isolation"]["hosts"]) {
    EXPECT_EQ(host["verdict"], rank_of(host["host"]) == 5 ? "slow" : "good") << host["host"];
  }
  EXPECT_NE(result.err.find("linkscope cluster: soak cycle 3 at "), std::string::npos) << result.err;
  EXPECT_NE(result.out.find("Soak: " + std::to_string(soak["cycles"].size()) + " cycle(s)"), std::string::npos)
      << result.out;
}

// A SIGTERM to one rank (not rank 0) ends the soak after the cycle it arrived in: every rank's signal reaches rank 0,
// which stops all of them; the run on disk says so and the job exits 130.
TEST(ClusterMpiCli, SoakEndsAfterTheCycleOnASignalToAnyRank) {
  LINKSCOPE_REQUIRE_LAUNCHER(launcher);
  test::TempDir dir;
  const std::string output = dir.path() + "/soak.json";
  const std::string fabric = write_fabric(dir, "f.json", "[]");
  const std::vector<std::string> env = {"LINKSCOPE_HOST_PER_RANK=1", "LINKSCOPE_TEST_FABRIC=" + fabric,
                                        std::string("LINKSCOPE_NVML_LIBRARY=") + LINKSCOPE_FAKE_NVML,
                                        "CUDA_VISIBLE_DEVICES=", "LINKSCOPE_TELEMETRY=off"};
  const std::vector<std::string> args = {"cluster", "-b", "64M", "-e", "64M", "--isolate", "--expect-gbps", "40",
                                         "--soak", "120s", "-q", "--output", output};
  // Rank 2 runs linkscope as its shell's child and sends it SIGTERM once a few cycles are done.
  const std::string signalled = std::string(LINKSCOPE_SEAMED_BINARY) + " " +
                                "cluster -b 64M -e 64M --isolate --expect-gbps 40 --soak 120s -q --output '" + output +
                                "' & child=$!; sleep 5; kill -TERM $child; wait $child";
  std::vector<test::RankCommand> ranks(4, test::RankCommand{env, LINKSCOPE_SEAMED_BINARY, args});
  ranks[2] = test::RankCommand{env, "/bin/sh", {"-c", signalled}};
  const auto start = std::chrono::steady_clock::now();
  const auto result = launcher.run(ranks, {"LINKSCOPE_HOST_NAME", "LINKSCOPE_HOST_PER_RANK"}, 200);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(result.exit_code, 130) << result.err;
  EXPECT_LT(seconds, 90) << "the soak went on after the signal";
  const json run = json::parse(test::read_text(output));
  const std::string ended = run["measurements"]["soak"]["ended"];
  EXPECT_EQ(ended.rfind("interrupted (SIGTERM) after soak cycle ", 0), 0u) << ended;
  EXPECT_EQ(run["config"]["stopped"], ended);
  EXPECT_GE(run["measurements"]["soak"]["cycles"].size(), 1u);
}

// `doctor --baseline` under MPI: rank 0 judges every host's run against the baseline, so each host's own findings
// say how it stands (here: their machine type, without a GPU CUDA can use, is not in a baseline of the h200x2 run).
TEST(ClusterMpiCli, DoctorJudgesEveryHostAgainstTheBaseline) {
  LINKSCOPE_REQUIRE_LAUNCHER(launcher);
  test::TempDir dir;
  const std::string baseline = dir.path() + "/baseline.json";
  ASSERT_EQ(test::run_command(LINKSCOPE_BINARY, {"baseline", test::fixture("runs/h200x2-healthy.json"), "-o", baseline})
                .exit_code,
            0);
  const std::string out = dir.path() + "/report";
  const std::vector<std::string> args = {"doctor", "--cross-host-only", "-o", out, "--timeout", "20", "--baseline", baseline};
  std::vector<test::RankCommand> ranks;
  for (const char* host : {"node-a", "node-b"}) {
    ranks.push_back({{std::string("LINKSCOPE_HOST_NAME=") + host, std::string("LINKSCOPE_NVML_LIBRARY=") + LINKSCOPE_FAKE_NVML,
                      "CUDA_VISIBLE_DEVICES=", "LINKSCOPE_TELEMETRY=off"},
                     LINKSCOPE_BINARY,
                     args});
  }
  const auto result = launcher.run(ranks, {"LINKSCOPE_HOST_NAME", "LINKSCOPE_HOST_PER_RANK"}, 120);
  EXPECT_NE(result.exit_code, 2) << result.err;  // accepted under MPI
  const json run = json::parse(test::read_text(out + "/run.json"));
  ASSERT_TRUE(run.contains("fleet")) << result.err;
  EXPECT_FALSE(run["fleet"]["type_in_baseline"].get<bool>());
  ASSERT_EQ(run["system"]["hosts"].size(), 2u);
  for (const auto& host : run["system"]["hosts"]) {
    bool said = false;
    for (const auto& finding : host["findings"]) said = said || finding["id"] == "outside-fleet-baseline";
    EXPECT_TRUE(said) << host["name"] << ": " << host["findings"].dump();
  }
}

}  // namespace
}  // namespace linkscope
