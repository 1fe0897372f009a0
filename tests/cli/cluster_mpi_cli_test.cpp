// linkscope under a real launcher on the CPU (LINKSCOPE_TEST_LAUNCHER: Open MPI's mpirun, MPICH's mpiexec.hydra or
// Slurm's srun; ctest runs each variant, tests/support/mpi_launcher.hpp): ranks on this machine play hosts, each with its own
// identity (LINKSCOPE_HOST_NAME) and facts (the recorded NVML of discover_fake_nvml/, changed per rank through
// its FAKE_NVML_* variables, and the h200x2 sysfs snapshot). Exercises the greeting and roster, the refusals,
// gathering and grouping the hosts' facts, and the watchdog on a rank that stops answering. Skipped, with the
// reason, only where the launcher is missing (in CI that fails instead).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "support/mpi_launcher.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "unit/discover_snapshot.hpp"

namespace linkscope {
namespace {

using test::CommandResult;
using test::run_command;

#define REQUIRE_LAUNCHER()                 \
  LINKSCOPE_REQUIRE_LAUNCHER(launcher);    \
  test::H200x2Snapshot snapshot;           \
  ASSERT_TRUE(snapshot.ok()) << snapshot.error()

// One rank of an MPMD job: `env VARS... linkscope ARGS...`.
struct Rank {
  std::vector<std::string> env;
  std::vector<std::string> args;
};

std::vector<std::string> fake_host(const std::string& name, std::vector<std::string> extra = {}) {
  extra.push_back("LINKSCOPE_HOST_NAME=" + name);
  extra.push_back(std::string("LINKSCOPE_NVML_LIBRARY=") + LINKSCOPE_FAKE_NVML);
  extra.push_back("CUDA_VISIBLE_DEVICES=");  // the same on machines with and without a GPU
  return extra;
}

CommandResult run_job(const test::MpiLauncher& launcher, const std::vector<Rank>& ranks, int timeout_seconds = 60) {
  std::vector<test::RankCommand> commands;
  for (const auto& rank : ranks) commands.push_back({rank.env, LINKSCOPE_BINARY, rank.args});
  // The identity variables of the test's own environment would reach every rank.
  return launcher.run(commands, {"LINKSCOPE_HOST_NAME", "LINKSCOPE_HOST_PER_RANK"}, timeout_seconds);
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ClusterMpiCli, TopoGathersEveryHostsFactsAndNamesTheDifferences) {
  REQUIRE_LAUNCHER();
  const std::vector<std::string> args = {"topo", "--sysfs-root", snapshot.root(), "--format", "json"};
  const auto result = run_job(launcher, {{fake_host("node-a"), args},
                                       {fake_host("node-b", {"FAKE_NVML_DRIVER_VERSION=575.57.08"}), args},
                                       {fake_host("node-c", {"FAKE_NVML_GPU_COUNT=1"}), args}});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto run = nlohmann::json::parse(result.out);  // one Run, printed by rank 0 alone
  const auto& system = run["system"];
  ASSERT_EQ(system["hosts"].size(), 3u);
  EXPECT_EQ(system["hosts"][1]["name"], "node-b");
  EXPECT_EQ(system["hosts"][1]["ranks"], nlohmann::json({1}));
  EXPECT_EQ(system["hosts"][1]["identity_source"], "LINKSCOPE_HOST_NAME");
  EXPECT_EQ(system["hosts"][1]["system"]["driver"]["version"], "575.57.08");  // each host's own facts, as JSON
  EXPECT_EQ(system["hosts"][2]["system"]["visibility"]["nvml_gpu_count"], 1);
  EXPECT_EQ(system["host_groups"].size(), 3u);
  EXPECT_EQ(run["config"]["host"], "node-a");
  std::map<std::string, nlohmann::json> differences;
  for (const auto& d : system["host_differences"]) differences[d["trait"].get<std::string>()] = d;
  ASSERT_TRUE(differences.count("driver"));
  EXPECT_EQ(differences["driver"]["common_value"], "580.159.04");
  EXPECT_EQ(differences["driver"]["others"], nlohmann::json::parse(R"([{"host": "node-b", "value": "575.57.08"}])"));
  ASSERT_TRUE(differences.count("gpu_count"));  // reported, not fatal
  EXPECT_EQ(differences["gpu_count"]["others"], nlohmann::json::parse(R"([{"host": "node-c", "value": "1"}])"));
  EXPECT_EQ(system["hosts"][2]["differences"][0], "GPU count 1 (2 other host(s): 2)");
}

TEST(ClusterMpiCli, IdenticalHostsFormOneGroupInText) {
  REQUIRE_LAUNCHER();
  const std::vector<std::string> args = {"topo", "--sysfs-root", snapshot.root()};
  const auto result = run_job(launcher, {{fake_host("node-a"), args}, {fake_host("node-b"), args}});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(count(result.out, "linkscope topo: 2 host(s), 2 rank(s) under MPI"), 1) << result.out;
  EXPECT_NE(result.out.find("Hosts: 2 host(s) in 1 group(s) of identical hosts"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("1      node-a, node-b  2"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("none: driver, CUDA, NCCL, GPUs, NVLinks, PCIe widths and NICs are the same"), std::string::npos);
  EXPECT_NE(result.out.find("host names are not the machines' own: they come from LINKSCOPE_HOST_NAME"), std::string::npos);
  EXPECT_NE(result.out.find("This host in detail: node-a (rank 0)"), std::string::npos);
  EXPECT_NE(result.out.find("GPU0\t X \tNV18"), std::string::npos) << result.out;  // rank 0's own topology
}

TEST(ClusterMpiCli, PerRankIdentityAndOneMachineOtherwise) {
  REQUIRE_LAUNCHER();
  const std::vector<std::string> args = {"topo", "--sysfs-root", snapshot.root(), "--format", "json"};
  const auto per_rank = run_job(launcher, {{fake_host("gpu", {"LINKSCOPE_HOST_PER_RANK=1"}), args},
                                         {fake_host("gpu", {"LINKSCOPE_HOST_PER_RANK=1"}), args}});
  ASSERT_EQ(per_rank.exit_code, 0) << per_rank.err;
  const auto hosts = nlohmann::json::parse(per_rank.out)["system"]["hosts"];
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0]["name"], "gpu-rank0");
  EXPECT_EQ(hosts[1]["name"], "gpu-rank1");
  EXPECT_EQ(hosts[1]["identity_source"], "LINKSCOPE_HOST_NAME + LINKSCOPE_HOST_PER_RANK");

  // Without an identity variable both ranks are on this machine: one host, discovered once, by rank 0.
  std::vector<std::string> plain = {std::string("LINKSCOPE_NVML_LIBRARY=") + LINKSCOPE_FAKE_NVML, "CUDA_VISIBLE_DEVICES="};
  const auto one = run_job(launcher, {{plain, args}, {plain, args}});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto single = nlohmann::json::parse(one.out)["system"]["hosts"];
  ASSERT_EQ(single.size(), 1u);
  EXPECT_EQ(single[0]["ranks"], nlohmann::json({0, 1}));
  EXPECT_EQ(single[0]["leader"], 0);
  EXPECT_EQ(single[0]["identity_source"], "hostname");
}

TEST(ClusterMpiCli, DifferentArgumentsAreRefusedNamingTheHosts) {
  REQUIRE_LAUNCHER();
  const auto result = run_job(launcher, {{fake_host("node-a"), {"topo", "--sysfs-root", snapshot.root()}},
                                       {fake_host("node-b"), {"topo", "--sysfs-root", snapshot.root(), "--no-nccl"}}});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(count(result.err, "linkscope: error:"), 1) << result.err;  // rank 0 alone says it
  EXPECT_NE(result.err.find("the ranks were started with different arguments: `topo --sysfs-root " + snapshot.root() +
                            "` on node-a (rank 0); `topo --sysfs-root " + snapshot.root() +
                            " --no-nccl` on node-b (rank 1); give every rank the same command line"),
            std::string::npos)
      << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
}

TEST(ClusterMpiCli, ABadHostNameOnOneRankIsReportedByRankZero) {
  REQUIRE_LAUNCHER();
  const std::vector<std::string> args = {"topo", "--sysfs-root", snapshot.root()};
  const auto result = run_job(launcher, {{fake_host("node-a"), args}, {fake_host("node b"), args}});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("linkscope: error: rank 1 on "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("LINKSCOPE_HOST_NAME='node b' is not a host name"), std::string::npos) << result.err;
}

TEST(ClusterMpiCli, ARankThatStopsAnsweringIsNamedWithinTheTimeout) {
  REQUIRE_LAUNCHER();
  // node-b's NVML "library" is a FIFO nobody writes: dlopen blocks, as a hung driver call would.
  test::TempDir dir;
  const std::string fifo = dir.path() + "/libnvidia-ml.so.1";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::vector<std::string> args = {"topo", "--sysfs-root", snapshot.root(), "--timeout", "2"};
  auto stuck = fake_host("node-b");
  stuck.push_back("LINKSCOPE_NVML_LIBRARY=" + fifo);  // the later assignment wins in env(1)
  const auto start = std::chrono::steady_clock::now();
  const auto result = run_job(launcher, {{fake_host("node-a"), args}, {stuck, args}});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(result.exit_code, launcher.aborted_exit_code(4)) << result.err;
  EXPECT_LT(seconds, 30) << "the job should end about 2 s after rank 0 started waiting";
  EXPECT_NE(result.err.find("linkscope: error (rank 0 (node-a)): rank 1 (node-b) did not answer within 2 s while "
                            "collecting every host's hardware facts; ending the MPI job"),
            std::string::npos)
      << result.err;
}

TEST(ClusterMpiCli, ARankThatDiesEndsTheJob) {
  REQUIRE_LAUNCHER();
  const std::vector<std::string> args = {"topo", "--sysfs-root", snapshot.root(), "--timeout", "20"};
  const auto start = std::chrono::steady_clock::now();
  const auto result = run_job(launcher, {{fake_host("node-a"), args}, {fake_host("node-b", {"FAKE_NVML_CRASH=1"}), args}});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.exit_code, -9) << "the job hung";
  EXPECT_LT(seconds, 30);
  // The launcher ends the job as soon as a rank dies (srun: --kill-on-bad-exit=1) and says so.
  EXPECT_NE((result.out + result.err).find(launcher.death_notice(1)), std::string::npos) << result.out << result.err;
}

TEST(ClusterMpiCli, ClusterNeedsTwoHostsAndSaysWhyNothingWasMeasured) {
  REQUIRE_LAUNCHER();
  std::vector<std::string> plain = {std::string("LINKSCOPE_NVML_LIBRARY=") + LINKSCOPE_FAKE_NVML, "CUDA_VISIBLE_DEVICES="};
  const auto one_host = run_job(launcher, {{plain, {"cluster"}}, {plain, {"cluster"}}});
  EXPECT_EQ(one_host.exit_code, 2) << one_host.err;
  EXPECT_NE(one_host.err.find("linkscope cluster needs ranks on two hosts or more; all 2 ranks run on"), std::string::npos)
      << one_host.err;
  EXPECT_NE(one_host.err.find("LINKSCOPE_HOST_PER_RANK=1"), std::string::npos) << one_host.err;

  // Two hosts without a GPU visible to CUDA: the facts are gathered, the plan says why no pair ran.
  test::TempDir dir;
  const std::string prom = dir.path() + "/cluster.prom";
  const std::vector<std::string> args = {"cluster", "--format", "json", "-q", "--prometheus", prom};
  const auto result = run_job(launcher, {{fake_host("node-a"), args}, {fake_host("node-b"), args}});
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_NE(result.err.find("linkscope: error: no pair of hosts could be measured: node-a is left out of the pairs: no "
                            "rank on this host drives a GPU (rank 0: "),
            std::string::npos)
      << result.err;
  const auto run = nlohmann::json::parse(result.out);
  EXPECT_EQ(run["config"]["subcommand"], "cluster");
  EXPECT_EQ(run["system"]["hosts"].size(), 2u);
  const auto& cross = run["measurements"]["cross_host"];
  EXPECT_EQ(cross["hosts"], nlohmann::json({"node-a", "node-b"}));
  EXPECT_TRUE(cross["pairs"].empty());
  EXPECT_EQ(cross["matrix"]["status"][0][1], "not measured");
  EXPECT_EQ(cross["all_reduce"]["status"], "not run");
  // Rank 0 also wrote the run as a Prometheus textfile (docs/reports.md "Prometheus export").
  EXPECT_NE(test::read_text(prom).find("linkscope_run_info{host=\"node-a\",subcommand=\"cluster\","), std::string::npos)
      << test::read_text(prom);
}

TEST(ClusterMpiCli, DoctorWritesOneReportForTheCluster) {
  REQUIRE_LAUNCHER();
  // No GPU is visible to CUDA here: each host is examined as far as its facts go, the report still covers both.
  test::TempDir dir;
  const std::string out = dir.path() + "/report";
  const std::string prom = dir.path() + "/doctor.prom";
  const std::vector<std::string> args = {"doctor", "--quick", "-o", out, "--timeout", "20", "--prometheus", prom};
  const auto result = run_job(launcher, {{fake_host("node-a"), args},
                                       {fake_host("node-b", {"FAKE_NVML_DRIVER_VERSION=575.57.08"}), args}});
  // Each host reports why nothing was measured (a finding, not an abort): the cluster's run is a report, exit 7.
  EXPECT_EQ(result.exit_code, 7) << result.err;
  EXPECT_EQ(result.err.find("linkscope: error:"), std::string::npos) << result.err;
  EXPECT_NE(result.out.find("  cluster: 2 host(s), 2 rank(s), 2 group(s) of identical hosts"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("  differs: NVIDIA driver: "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("host-differs"), std::string::npos) << result.out;
  const auto run = nlohmann::json::parse(test::read_text(out + "/run.json"));
  EXPECT_EQ(run["config"]["subcommand"], "doctor");
  EXPECT_EQ(run["system"]["hosts"].size(), 2u);
  EXPECT_EQ(run["system"]["hosts"][1]["system"]["driver"]["version"], "575.57.08");
  EXPECT_TRUE(run["measurements"].contains("cross_host"));
  std::set<std::string> hosts_without_gpu;  // each host's own diagnosis names why it measured nothing
  for (const auto& host : run["system"]["hosts"])
    for (const auto& finding : host["findings"])
      if (finding["id"] == "gpu-count-mismatch" && finding["severity"] == "error")
        hosts_without_gpu.insert(host["name"].get<std::string>());
  EXPECT_EQ(hosts_without_gpu, (std::set<std::string>{"node-a", "node-b"})) << run["system"]["hosts"].dump(2);
  // The textfile has each host's own findings under its name.
  const std::string text = test::read_text(prom);
  for (const char* host : {"node-a", "node-b"}) {
    EXPECT_NE(text.find(std::string("linkscope_finding{host=\"") + host +
                        "\",rule=\"gpu-count-mismatch\",severity=\"error\"} 1\n"),
              std::string::npos)
        << host << "\n" << text;
  }
  const std::string html = test::read_text(out + "/report.html");
  EXPECT_NE(html.find("<section id=\"hosts\">"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"cross-host\">"), std::string::npos);
  // Every host's run is a file of the report's set (docs/reports.md "Writing the report directory").
  const std::string list = test::read_text(out + "/.linkscope-files");
  for (const char* host : {"host-node-a.json", "host-node-b.json"}) {
    EXPECT_TRUE(std::filesystem::is_regular_file(out + "/" + host)) << host;
    EXPECT_NE(list.find(std::string("\n") + host + "\n"), std::string::npos) << list;
  }
}

TEST(ClusterMpiCli, OfflineCommandsRunOnceUnderMpirun) {
  REQUIRE_LAUNCHER();
  test::TempDir dir;
  const std::vector<std::string> args = {"doctor", "--from", test::fixture("runs/h200x2-healthy.json"), "-o", dir.path() + "/r"};
  const auto doctor = run_job(launcher, {{{}, args}, {{}, args}});
  EXPECT_EQ(doctor.exit_code, 0) << doctor.err;
  EXPECT_EQ(count(doctor.out, "linkscope doctor: "), 1) << doctor.out;
  const std::vector<std::string> topo = {"topo", "--xml", test::fixture("h200x2/nccl-topo-dump.xml")};
  const auto model = run_job(launcher, {{{}, topo}, {{}, topo}});
  EXPECT_EQ(model.exit_code, 0) << model.err;
  EXPECT_EQ(count(model.out, " topology model of "), 1) << model.out;
}

}  // namespace
}  // namespace linkscope
