// `linkscope cluster` end to end on a machine with two GPUs: two MPI ranks play two hosts
// (LINKSCOPE_HOST_PER_RANK=1) and NCCL is forced onto its network transport (P2P and SHM disabled), so the
// cross-host pair, the NIC NCCL used and the all_reduce across "hosts" are real measurements. Skipped, with the
// reason, without two GPUs or without mpirun.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "device_test_support.hpp"
#include "support/run_command.hpp"

namespace linkscope {
namespace {

std::string find_mpirun() {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string candidate = dirs.substr(start, end - start) + "/mpirun";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

TEST(ClusterDevice, TwoRanksAsTwoHostsOverNcclsNetwork) {
  LINKSCOPE_REQUIRE_GPUS(2);
  const std::string mpirun = find_mpirun();
  if (mpirun.empty()) GTEST_SKIP() << "mpirun not found on PATH: install openmpi-bin (scripts/install-deps.sh)";
  // The device machine runs a copied build tree: LINKSCOPE names the binary there (as in bench/device/*.sh).
  const char* moved = std::getenv("LINKSCOPE");
  const std::string binary = moved != nullptr && *moved != '\0' ? moved : LINKSCOPE_BINARY;
  const auto result = test::run_command(
      mpirun,
      {"--allow-run-as-root", "--oversubscribe", "-np", "2", "-x", "LINKSCOPE_HOST_PER_RANK=1", "-x", "NCCL_P2P_DISABLE=1",
       "-x", "NCCL_SHM_DISABLE=1", "-x", "NCCL_NVLS_ENABLE=0", binary, "cluster", "-b", "1M", "-e", "64M", "-f",
       "8", "--max-time", "0.1", "--timeout", "60", "--format", "json", "-q"},
      {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"}, 300);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto run = nlohmann::json::parse(result.out);
  const auto& cross = run["measurements"]["cross_host"];
  ASSERT_EQ(cross["hosts"].size(), 2u);
  ASSERT_EQ(cross["pairs"].size(), 1u);
  const auto& pair = cross["pairs"][0];
  EXPECT_EQ(pair["status"], "ok") << pair["reason"];
  EXPECT_GT(pair["bandwidth_gbps"].get<double>(), 0.0);
  EXPECT_EQ(pair["bytes"], 64ULL << 20);
  EXPECT_EQ(pair["a"]["cuda_device"], 0);
  EXPECT_EQ(pair["b"]["cuda_device"], 1);
  EXPECT_EQ(pair["series"]["points"].size(), 3u);
  EXPECT_EQ(pair["series"]["points"][2]["wrong"], 0);
  // The network transport, and the NIC it went through, from NCCL's own log.
  EXPECT_EQ(pair["a"]["transport"].get<std::string>().rfind("NET/", 0), 0u) << pair["a"];
  EXPECT_TRUE(pair["a"]["nic"].is_string()) << pair["a"];
  EXPECT_EQ(cross["matrix"]["bandwidth_gbps"][0][1], cross["matrix"]["bandwidth_gbps"][1][0]);
  const auto& all_reduce = cross["all_reduce"];
  EXPECT_EQ(all_reduce["status"], "ok") << all_reduce["reason"];
  EXPECT_EQ(all_reduce["nranks"], 2);
  EXPECT_GT(all_reduce["busbw_gbps"].get<double>(), 0.0);
  EXPECT_EQ(run["system"]["hosts"].size(), 2u);
}

}  // namespace
}  // namespace linkscope
