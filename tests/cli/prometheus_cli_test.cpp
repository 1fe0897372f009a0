// The Prometheus export (`report --format prometheus`, `doctor --prometheus FILE`) through a real parser
// (promtool, Debian's prometheus package: scripts/install-deps.sh), written atomically with the earlier file's
// permissions, and `doctor --exit-codes nagios` (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN). No GPU.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/run_file.hpp"
#include "support/background_command.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "unit/cluster_test_runs.hpp"
#include "unit/isolation_test_runs.hpp"

namespace linkscope {
namespace {

namespace fs = std::filesystem;
using test::fixture;
using test::read_text;
using test::run_command;

constexpr const char* kNoDriver = "LINKSCOPE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1";

// Where promtool is missing the check is skipped with the reason; on CI (CI=true) that is a failure instead,
// as for a missing MPI launcher (support/mpi_launcher).
#define LINKSCOPE_REQUIRE_PROMTOOL()                                                                       \
  do {                                                                                                     \
    if (run_command("promtool", {"--version"}).exit_code != 0) {                                         \
      const char* ci = std::getenv("CI");                                                                  \
      if (ci != nullptr && std::string(ci) == "true") FAIL() << "promtool not found on CI";               \
      GTEST_SKIP() << "promtool not found (apt-get install prometheus; scripts/install-deps.sh does)";    \
    }                                                                                                      \
  } while (false)

// promtool's own parser and linter on a textfile: exit 0 and nothing said.
test::CommandResult promtool_check(const std::string& path) {
  return run_command("/bin/sh", {"-c", "promtool check metrics < \"$0\"", path});
}

mode_t permissions(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777;
}

std::map<std::string, std::string> snapshot(const std::string& directory) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(directory)) {
    files[entry.path().filename().string()] = read_text(entry.path().string());
  }
  return files;
}

class PrometheusOfRun : public ::testing::TestWithParam<const char*> {};

TEST_P(PrometheusOfRun, PromtoolAcceptsTheTextfile) {
  LINKSCOPE_REQUIRE_PROMTOOL();
  test::TempDir dir;
  const std::string out = dir.path() + "/linkscope.prom";
  const auto written = run_command(LINKSCOPE_BINARY, {"report", fixture(std::string("runs/") + GetParam()),
                                                      "--format", "prometheus", "-o", out});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  const auto check = promtool_check(out);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_EQ(check.out + check.err, "");  // no lint message either
  EXPECT_NE(read_text(out).find("# TYPE linkscope_finding gauge\n"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Runs, PrometheusOfRun,
                         ::testing::Values("h200x2-healthy.json", "h200x2-busy-gpu1.json",
                                           "h200x2-cuda-visible-devices-1.json", "h200x2-nccl-p2p-disable.json",
                                           "h200x2-rerun.json", "hgx-h200-8gpu-model.json",
                                           "hgx-h200-8gpu-synthetic.json", "hgx-h200-8gpu-synthetic-gpu5-slow.json"));

// A saved run of three hosts: host pairs and every host's GPUs and findings in one file, still valid.
TEST(PrometheusCli, PromtoolAcceptsTheTextfileOfACluster) {
  LINKSCOPE_REQUIRE_PROMTOOL();
  test::TempDir dir;
  const std::string run = dir.path() + "/cluster-run.json";
  model::write_run_file(run, test::cluster_run());
  const std::string out = dir.path() + "/cluster.prom";
  const auto written = run_command(LINKSCOPE_BINARY, {"report", run, "--format", "prometheus", "-o", out});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_NE(read_text(out).find("linkscope_cross_host_bandwidth_bytes_per_second{host=\"node-a\",peer=\"node-c\""),
            std::string::npos);
  const auto check = promtool_check(out);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_EQ(check.out + check.err, "");

  // `cluster --isolate`: the every-host all_reduce and every host's verdict, still valid.
  model::Run isolated = test::cluster_run();
  isolated.measurements.cross_host = test::isolated_cross_host(5, 2);
  model::write_run_file(run, isolated);
  ASSERT_EQ(run_command(LINKSCOPE_BINARY, {"report", run, "--format", "prometheus", "-o", out}).exit_code, 0);
  EXPECT_NE(read_text(out).find("linkscope_isolation_host_verdict{host=\"h2\",verdict=\"hung\"} 1\n"),
            std::string::npos)
      << read_text(out);
  const auto isolation_check = promtool_check(out);
  EXPECT_EQ(isolation_check.exit_code, 0) << isolation_check.out << isolation_check.err;
  EXPECT_EQ(isolation_check.out + isolation_check.err, "");
}

TEST(PrometheusCli, ReportPrintsTheTextfileOnStdoutAndNamesItInADirectory) {
  test::TempDir dir;
  const std::string run = fixture("runs/h200x2-healthy.json");
  const auto printed = run_command(LINKSCOPE_BINARY, {"report", run, "--format", "prometheus"});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(printed.out.rfind("# HELP linkscope_run_info ", 0), 0u) << printed.out.substr(0, 200);
  const auto into = run_command(LINKSCOPE_BINARY, {"report", run, "--format", "prometheus", "-o", dir.path() + "/"});
  ASSERT_EQ(into.exit_code, 0) << into.err;
  EXPECT_EQ(read_text(dir.path() + "/linkscope.prom"), printed.out);
}

// A live doctor without a driver (a build machine) and a saved run: the file beside the report directory, valid.
TEST(PrometheusCli, DoctorWritesTheTextfileOfWhatItDiagnosed) {
  test::TempDir dir;
  const std::string prom = dir.path() + "/textfile/linkscope.prom";
  fs::create_directories(dir.path() + "/textfile");
  const auto live = run_command(LINKSCOPE_BINARY, {"doctor", "--quick", "-o", dir.path() + "/r", "--prometheus", prom},
                                {kNoDriver});
  EXPECT_EQ(live.exit_code, 7) << live.err;
  const std::string text = read_text(prom);
  EXPECT_NE(text.find(",rule=\"driver-unavailable\",severity=\"error\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("linkscope_check_status{host="), std::string::npos);
  const auto from = run_command(LINKSCOPE_BINARY, {"doctor", "--from", fixture("runs/h200x2-nccl-p2p-disable.json"),
                                                   "-o", dir.path() + "/s", "--prometheus", prom});
  EXPECT_EQ(from.exit_code, 7) << from.err;
  EXPECT_NE(read_text(prom).find(",rule=\"nccl-env-path-removed\",severity=\"error\"} 1\n"), std::string::npos);
  LINKSCOPE_REQUIRE_PROMTOOL();
  const auto check = promtool_check(prom);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

TEST(PrometheusCli, AnUnwritableTextfileIsRefusedBeforeMeasuring) {
  test::TempDir dir;
  const std::string file = dir.write("afile", "x");
  const auto result = run_command(LINKSCOPE_BINARY, {"doctor", "--quick", "-o", dir.path() + "/r", "--prometheus",
                                                     file + "/linkscope.prom"}, {kNoDriver});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("--prometheus " + file + "/linkscope.prom"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(dir.path() + "/r/run.json")) << "nothing measured";
  // Never over the run it reads.
  const std::string run = dir.write("run.json", read_text(fixture("runs/h200x2-healthy.json")));
  const auto over = run_command(LINKSCOPE_BINARY, {"doctor", "--from", run, "-o", dir.path() + "/s",
                                                   "--prometheus", run});
  EXPECT_EQ(over.exit_code, 2) << over.err;
  EXPECT_EQ(read_text(run), read_text(fixture("runs/h200x2-healthy.json")));
}

// node-exporter may read the textfile at any moment: the path only ever names a whole file. The new text is made
// whole under a hidden name beside it and renamed over it; a signal before the rename leaves the earlier file.
TEST(PrometheusCli, TheTextfileIsReplacedWholeByARename) {
  test::TempDir dir;
  const std::string run = fixture("runs/h200x2-healthy.json");
  const std::string prom = dir.write("textfile/linkscope.prom", "old");
  const std::string expected = run_command(LINKSCOPE_BINARY, {"report", run, "--format", "prometheus"}).out;
  test::BackgroundCommand command(LINKSCOPE_SEAMED_BINARY, {"report", run, "--format", "prometheus", "-o", prom},
                                  {"LINKSCOPE_TEST_WRITE_PAUSE=staged:1"}, dir.path() + "/err");
  ASSERT_TRUE(command.wait_for_stderr("linkscope: test: paused after staged file 1\n", 60)) << command.err();
  const auto staged = snapshot(dir.path() + "/textfile");
  ASSERT_EQ(staged.size(), 2u);
  EXPECT_EQ(staged.at("linkscope.prom"), "old") << "the earlier file stays until the rename";
  for (const auto& [name, text] : staged) {
    if (name == "linkscope.prom") continue;
    EXPECT_EQ(name.rfind(".linkscope.prom.tmp-", 0), 0u) << name;  // hidden: the collector reads *.prom only
    EXPECT_EQ(text, expected) << "the new file is whole before it gets the name";
  }
  command.send(SIGINT);
  EXPECT_EQ(command.wait(60), 130) << command.err();
  EXPECT_EQ(snapshot(dir.path() + "/textfile"), (std::map<std::string, std::string>{{"linkscope.prom", "old"}}));
}

// Like every output: a replaced textfile keeps its permission bits (a private one stays private).
TEST(PrometheusCli, AReplacedTextfileKeepsItsPermissions) {
  test::TempDir dir;
  const std::string prom = dir.write("linkscope.prom", "old");
  ASSERT_EQ(::chmod(prom.c_str(), 0640), 0);
  const auto result = run_command(LINKSCOPE_BINARY, {"doctor", "--from", fixture("runs/h200x2-healthy.json"), "-o",
                                                     dir.path() + "/r", "--prometheus", prom});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(read_text(prom), "old");
  EXPECT_EQ(permissions(prom), 0640u);
}

TEST(NagiosExitCodes, FindingsMapToOkWarningCriticalAndUnknown) {
  test::TempDir dir;
  const auto doctor = [&dir](const std::string& run, const std::vector<std::string>& env = {}) {
    const std::vector<std::string> from{"doctor", "--from", run, "-o", dir.path() + "/r", "--exit-codes", "nagios"};
    return run_command(LINKSCOPE_BINARY, from, env).exit_code;
  };
  EXPECT_EQ(doctor(fixture("runs/h200x2-healthy.json")), 0);
  EXPECT_EQ(doctor(fixture("runs/h200x2-busy-gpu1.json")), 1);         // noisy-measurement: a warning
  EXPECT_EQ(doctor(fixture("runs/h200x2-nccl-p2p-disable.json")), 2);  // nccl-env-path-removed: an error
  // A run that stopped early could not judge the machine.
  auto stopped = nlohmann::json::parse(read_text(fixture("runs/h200x2-healthy.json")));
  stopped["config"]["stopped"] = "interrupted (SIGINT) during p2p, 1 of 9 steps done";
  EXPECT_EQ(doctor(dir.write("stopped.json", stopped.dump())), 3);
  // --fail-on has no say in nagios mode.
  const auto none = run_command(LINKSCOPE_BINARY, {"doctor", "--from", fixture("runs/h200x2-nccl-p2p-disable.json"),
                                                   "-o", dir.path() + "/n", "--exit-codes", "nagios", "--fail-on",
                                                   "none"});
  EXPECT_EQ(none.exit_code, 2);
}

TEST(NagiosExitCodes, NoDriverAndAFailureOfLinkscopeAreUnknown) {
  test::TempDir dir;
  const auto live = run_command(LINKSCOPE_BINARY, {"doctor", "--quick", "-o", dir.path() + "/r", "--exit-codes",
                                                   "nagios"}, {kNoDriver});
  EXPECT_EQ(live.exit_code, 3) << live.err;
  const auto missing = run_command(LINKSCOPE_BINARY, {"doctor", "--from", dir.path() + "/none.json", "-o",
                                                      dir.path() + "/s", "--exit-codes", "nagios"});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_EQ(missing.err.rfind("linkscope: error: ", 0), 0u) << missing.err;  // the usual one line
  EXPECT_NE(missing.err.find("none.json"), std::string::npos) << missing.err;
  // Without the option the same failures keep linkscope's own codes.
  EXPECT_EQ(run_command(LINKSCOPE_BINARY, {"doctor", "--from", dir.path() + "/none.json", "-o", dir.path() + "/t"})
                .exit_code,
            2);
}

}  // namespace
}  // namespace linkscope
