// `linkscope capture`, then `topo --capture` and `doctor --capture`: the real binary, the real NVML loader (the
// recorded h200x2 NVML, discover_fake_nvml) and the real h200x2 sysfs snapshot. A capture read anywhere gives the
// System the live topo gives on the captured machine; damaged captures are one-line errors with exit 2.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "unit/discover_snapshot.hpp"

namespace linkscope {
namespace {

using nlohmann::json;
using test::run_command;

std::vector<std::string> fake_driver() {
  return {std::string("LINKSCOPE_NVML_LIBRARY=") + LINKSCOPE_FAKE_NVML, "CUDA_VISIBLE_DEVICES=",
          "NCCL_P2P_LEVEL=NVL", "NCCL_SOCKET_IFNAME=eth0", "SECRET_TOKEN=do-not-capture"};
}

// The System minus what names where and when it was read.
json comparable_system(json system) {
  for (const char* key : {"sysfs_root", "capture", "discovery_seconds", "nccl_topology"}) system.erase(key);
  return system;
}

class CaptureCli : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(snapshot_.ok()) << snapshot_.error();
    capture_ = dir_.path() + "/h200x2.tgz";
    const auto taken = run_command(LINKSCOPE_BINARY, {"capture", "-o", capture_, "--sysfs-root", snapshot_.root()},
                                   fake_driver());
    ASSERT_EQ(taken.exit_code, 0) << taken.err;
    taken_err_ = taken.err;
  }

  test::H200x2Snapshot snapshot_;
  test::TempDir dir_;
  std::string capture_;
  std::string taken_err_;
};

TEST_F(CaptureCli, TopoOfTheCaptureIsTheLiveTopoOfTheCapturedMachine) {
  EXPECT_NE(taken_err_.find("wrote " + capture_), std::string::npos) << taken_err_;
  EXPECT_NE(taken_err_.find("2 GPUs by NVML"), std::string::npos) << taken_err_;
  const auto live = run_command(LINKSCOPE_BINARY,
                                {"topo", "--sysfs-root", snapshot_.root(), "--no-nccl", "--format", "json"}, fake_driver());
  // Read elsewhere: no fake NVML, none of the captured variables in this process.
  const auto read = run_command(LINKSCOPE_BINARY, {"topo", "--capture", capture_, "--format", "json"},
                                {"LINKSCOPE_NVML_LIBRARY=/nonexistent", "NCCL_P2P_LEVEL", "NCCL_SOCKET_IFNAME"});
  ASSERT_EQ(live.exit_code, read.exit_code) << live.err << "\n" << read.err;
  const json live_run = json::parse(live.out);
  const json read_run = json::parse(read.out);
  EXPECT_EQ(comparable_system(read_run["system"]), comparable_system(live_run["system"]));
  EXPECT_EQ(read_run["system"]["capture"], capture_);
  // The same release modelled, named from where each run found it (the live libnccl, the captured machine's).
  json read_model = read_run["model"], live_model = live_run["model"];
  for (const char* key : {"nccl_version_from", "nccl_version_note"}) {
    read_model.erase(key);
    live_model.erase(key);
  }
  EXPECT_EQ(read_model, live_model);
  EXPECT_EQ(read_run["environment"]["variables"]["NCCL_P2P_LEVEL"], "NVL");
  EXPECT_FALSE(read_run["environment"]["variables"].contains("SECRET_TOKEN"));
  EXPECT_EQ(read_run["system"]["visibility"]["hidden"].size(), 2u);
}

TEST_F(CaptureCli, TheCaptureHoldsNoVariableButNcclAndCudaOnes) {
  const auto listing = run_command("tar", {"-xzOf", capture_, "linkscope-capture/manifest.json"});
  ASSERT_EQ(listing.exit_code, 0) << listing.err;
  const json manifest = json::parse(listing.out);
  EXPECT_EQ(manifest["format"], "linkscope-capture");
  EXPECT_EQ(manifest["environment"]["NCCL_P2P_LEVEL"], "NVL");
  EXPECT_EQ(manifest["environment"]["CUDA_VISIBLE_DEVICES"], "");
  EXPECT_FALSE(manifest["environment"].contains("SECRET_TOKEN"));
  EXPECT_FALSE(manifest["environment"].contains("LINKSCOPE_NVML_LIBRARY"));
  const auto all = run_command("tar", {"-xzOf", capture_});
  EXPECT_EQ(all.out.find("do-not-capture"), std::string::npos);
}

TEST_F(CaptureCli, DoctorOfTheCaptureWritesAReportOfItsFactsAndSaysNothingWasMeasured) {
  const std::string report = dir_.path() + "/report";
  const auto doctor = run_command(LINKSCOPE_BINARY, {"doctor", "--capture", capture_, "-o", report, "--format", "json"},
                                  {"LINKSCOPE_NVML_LIBRARY=/nonexistent"});
  ASSERT_TRUE(doctor.exit_code == 0 || doctor.exit_code == 7) << doctor.err;
  const json run = json::parse(doctor.out);
  EXPECT_EQ(run["config"]["subcommand"], "doctor");
  EXPECT_EQ(run["system"]["capture"], capture_);
  bool said = false;
  for (const auto& skipped : run["config"]["skipped"]) said = said || skipped["step"] == "measurements";
  EXPECT_TRUE(said) << run["config"].dump();
  // CUDA_VISIBLE_DEVICES= hid both GPUs on the captured machine: the doctor there says so, and so does this one.
  ASSERT_FALSE(run["findings"].empty());
  EXPECT_EQ(run["findings"][0]["id"], "gpu-count-mismatch") << run["findings"].dump();
  EXPECT_TRUE(std::filesystem::exists(report + "/report.html"));
  EXPECT_NE(doctor.err.find("diagnosed the capture " + capture_), std::string::npos) << doctor.err;
}

TEST(CaptureCliErrors, AMissingOrDamagedCaptureIsOneLineAndExit2) {
  test::TempDir dir;
  const auto missing = run_command(LINKSCOPE_BINARY, {"doctor", "--capture", dir.path() + "/none.tgz", "-o",
                                                      dir.path() + "/r"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("none.tgz: no such capture file"), std::string::npos) << missing.err;
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;

  const std::string garbage = dir.write("garbage.tgz", std::string("\x1f\x8b\x08garbage\x1b[31m", 14));
  const auto damaged = run_command(LINKSCOPE_BINARY, {"topo", "--capture", garbage});
  EXPECT_EQ(damaged.exit_code, 2) << damaged.err;
  EXPECT_NE(damaged.err.find("not a readable capture"), std::string::npos) << damaged.err;
  EXPECT_EQ(damaged.err.find('\x1b'), std::string::npos) << damaged.err;

  const auto both = run_command(LINKSCOPE_BINARY, {"doctor", "--capture", garbage, "--xml", garbage});
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_NE(both.err.find("one of --from RUN.json, --xml FILE and --capture FILE"), std::string::npos) << both.err;

  const auto nowhere = run_command(LINKSCOPE_BINARY, {"capture", "-o", dir.path() + "/no/such/dir/m.tgz", "--no-nccl"});
  EXPECT_EQ(nowhere.exit_code, 2) << nowhere.err;
}

}  // namespace
}  // namespace linkscope
