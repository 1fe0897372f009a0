// A capture keeps what discovery reads: the snapshots survive JSON both ways, the copied tree gives the same
// System as the tree it was copied from, and a capture file written is the capture read back. Damaged or hostile
// files are one-line InputErrors.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "capture/capture_file.hpp"
#include "capture/captured_machine.hpp"
#include "capture/host_tree_copy.hpp"
#include "capture/snapshot_json.hpp"
#include "core/error.hpp"
#include "core/subprocess.hpp"
#include "discover/host_facts.hpp"
#include "discover/nvidia_services.hpp"
#include "discover/system_facts.hpp"
#include "discover/system_model.hpp"
#include "model/system.hpp"
#include "support/temp_dir.hpp"
#include "unit/discover_recorded_h200x2.hpp"
#include "unit/discover_snapshot.hpp"

namespace linkscope {
namespace {

using nlohmann::json;

json reparse_nvml(const json& document) {
  return capture::nvml_snapshot_json(capture::nvml_snapshot_from(model::JsonReader::root(document, "nvml.json")));
}

discover::NvmlSnapshot nvml_with_every_kind_of_fact() {
  discover::NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  discover::NvmlFabricRecord fabric;
  fabric.state = 3;
  fabric.status = 0;
  fabric.status_text = "Success";
  fabric.clique_id = 32766;
  fabric.cluster_uuid = std::string(32, '0');
  fabric.health_mask = discover::Fact<unsigned>::known(0);
  nvml.gpus.at(0).fabric = discover::Fact<discover::NvmlFabricRecord>::known(fabric);
  nvml.gpus.at(1).fabric = discover::Fact<discover::NvmlFabricRecord>::unknown("nvmlDeviceGetGpuFabricInfoV: Not Supported");
  nvml.gpus.at(0).processes = discover::Fact<std::vector<discover::ProcessRecord>>::known(
      {{4242, "python3", discover::Fact<unsigned long long>::known(137ull << 30)}});
  nvml.gpus.at(0).cpu_affinity = discover::Fact<std::vector<int>>::known({0, 1, 2, 3});
  return nvml;
}

TEST(CaptureSnapshotJson, NvmlSnapshotSurvivesJsonBothWays) {
  const discover::NvmlSnapshot nvml = nvml_with_every_kind_of_fact();
  const json written = capture::nvml_snapshot_json(nvml);
  EXPECT_EQ(reparse_nvml(written), written);
  const discover::NvmlSnapshot read = capture::nvml_snapshot_from(model::JsonReader::root(written, "nvml.json"));
  ASSERT_EQ(read.gpus.size(), nvml.gpus.size());
  EXPECT_EQ(read.gpus[0].fabric->clique_id, 32766u);
  EXPECT_EQ(read.gpus[1].fabric.reason, "nvmlDeviceGetGpuFabricInfoV: Not Supported");
  EXPECT_EQ(*(*read.gpus[0].processes)[0].used_memory_bytes, 137ull << 30);
  EXPECT_EQ(read.gpus[0].nvlinks.size(), nvml.gpus[0].nvlinks.size());
  EXPECT_EQ(*read.gpus[0].nvlinks.at(0).speed_mbyte_s, *nvml.gpus[0].nvlinks.at(0).speed_mbyte_s);
  EXPECT_EQ(read.pairs.size(), nvml.pairs.size());
  EXPECT_EQ(*read.driver_version, *nvml.driver_version);
}

TEST(CaptureSnapshotJson, CudaSnapshotAndNcclProbeSurviveJsonBothWays) {
  const discover::NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  discover::CudaSnapshot cuda = test::h200x2_cuda_snapshot(nvml, {0, 1});
  cuda.devices.at(0).dma_buf = discover::Fact<bool>::known(true);
  cuda.devices.at(1).multicast = discover::Fact<bool>::unknown("cuDeviceGetAttribute failed (1)");
  const json written = capture::cuda_snapshot_json(cuda);
  const discover::CudaSnapshot read = capture::cuda_snapshot_from(model::JsonReader::root(written, "cuda.json"));
  EXPECT_EQ(capture::cuda_snapshot_json(read), written);
  EXPECT_TRUE(*read.devices.at(0).dma_buf);
  EXPECT_EQ(read.devices.at(1).multicast.reason, "cuDeviceGetAttribute failed (1)");

  discover::NcclProbeResult probe;
  probe.status = "ok";
  probe.nccl_version = "2.28.3";
  probe.device_count = 2;
  probe.dump_xml = test::read_text(test::fixture("h200x2/nccl-topo-dump.xml"));
  probe.log = "NCCL INFO Bootstrap\n";
  const json probe_json = capture::nccl_probe_json(probe);
  EXPECT_EQ(capture::nccl_probe_json(capture::nccl_probe_from(model::JsonReader::root(probe_json, "nccl.json"))),
            probe_json);
}

TEST(CaptureSnapshotJson, AValueOfTheWrongTypeNamesTheFieldInsteadOfGuessing) {
  json written = capture::nvml_snapshot_json(test::h200x2_nvml_snapshot());
  written["gpus"][1]["sm"]["value"] = "ninety";
  try {
    capture::nvml_snapshot_from(model::JsonReader::root(written, "cap.tgz: nvml.json"));
    FAIL() << "a string compute capability was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cap.tgz: nvml.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sm"), std::string::npos) << e.what();
  }
}

// The System discovery builds from a tree (no NVML facts differ: the same recorded ones for both).
json system_of(const std::string& root) {
  const discover::NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  const auto facts = discover::assemble_system_facts(discover::read_host_facts(discover::SysfsRoot(root)), nvml,
                                                     test::h200x2_cuda_snapshot(nvml, {0, 1}),
                                                     Environment::from_map({}));
  json system = model::to_json(discover::system_model(facts));
  system.erase("sysfs_root");
  return system;
}

TEST(HostTreeCopy, TheCopyOfARealTreeGivesTheSameSystemAsTheTreeItself) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  test::TempDir copy;
  const capture::TreeCopy tree = capture::copy_host_tree(discover::SysfsRoot(snapshot.root()), copy.path());
  EXPECT_TRUE(tree.truncated.empty()) << tree.truncated;
  EXPECT_GT(tree.files, 100u);
  EXPECT_GT(tree.links, 8u);  // /sys/bus/pci/devices and /sys/class/net are links into /sys/devices
  const json original = system_of(snapshot.root());
  EXPECT_EQ(system_of(copy.path()), original);
  EXPECT_EQ(original["gpus"].size(), 2u);
  EXPECT_FALSE(original["numa_nodes"].empty());
}

TEST(HostTreeCopy, KeepsConfigSpaceByteForByteAndLeavesTriggersBarsAndSerialsOut) {
  test::TempDir source;
  const std::string device = "/sys/devices/pci0000:00/0000:00:01.0";
  std::string config(256, '\0');
  config[0] = '\xde';
  config[0x100 - 1] = '\x0d';
  source.write("sys/devices/pci0000:00/0000:00:01.0/config", config);
  for (const char* name : {"vpd", "rom", "resource0", "resource2_wc", "remove", "rescan", "reset"}) {
    source.write(std::string("sys/devices/pci0000:00/0000:00:01.0/") + name, "do not read me");
  }
  source.write("sys/devices/pci0000:00/0000:00:01.0/vendor", "0x10de\n");
  source.write("sys/class/dmi/id/sys_vendor", "QEMU\n");
  source.write("sys/class/dmi/id/product_serial", "SECRET-1234\n");
  source.write("sys/class/dmi/id/product_uuid", "0e4f-secret\n");
  source.write("proc/cmdline", "BOOT_IMAGE=/vmlinuz iommu=pt\n");
  source.write("proc/self/environ", "TOKEN=secret");
  std::filesystem::create_directories(source.path() + "/sys/bus/pci/devices");
  std::filesystem::create_symlink("../../../devices/pci0000:00/0000:00:01.0",
                                  source.path() + "/sys/bus/pci/devices/0000:00:01.0");
  test::TempDir copy;
  const capture::TreeCopy tree = capture::copy_host_tree(discover::SysfsRoot(source.path()), copy.path());
  EXPECT_EQ(test::read_text(copy.path() + device + "/config"), config);
  EXPECT_EQ(test::read_text(copy.path() + device + "/vendor"), "0x10de\n");
  for (const char* name : {"vpd", "rom", "resource0", "resource2_wc", "remove", "rescan", "reset"}) {
    EXPECT_FALSE(std::filesystem::exists(copy.path() + device + "/" + name)) << name;
  }
  EXPECT_EQ(test::read_text(copy.path() + "/sys/class/dmi/id/sys_vendor"), "QEMU\n");
  EXPECT_FALSE(std::filesystem::exists(copy.path() + "/sys/class/dmi/id/product_serial"));
  EXPECT_FALSE(std::filesystem::exists(copy.path() + "/sys/class/dmi/id/product_uuid"));
  EXPECT_FALSE(std::filesystem::exists(copy.path() + "/proc/self"));
  EXPECT_EQ(test::read_text(copy.path() + "/proc/cmdline"), "BOOT_IMAGE=/vmlinuz iommu=pt\n");
  EXPECT_TRUE(std::filesystem::is_symlink(copy.path() + "/sys/bus/pci/devices/0000:00:01.0"));
  EXPECT_EQ(discover::SysfsRoot(copy.path()).read_attribute("/sys/bus/pci/devices/0000:00:01.0/vendor"), "0x10de");
  EXPECT_EQ(tree.links, 1u);
}

TEST(HostTreeCopy, KeepsOnlyTheNvidiaDaemonsOfTheProcessTable) {
  test::TempDir source;
  source.write("proc/301/comm", "nv-fabricmanage\n");
  source.write("proc/301/environ", "SECRET=1");
  source.write("proc/302/comm", "bash\n");
  source.write("proc/303/comm", "nvidia-imex\n");
  test::TempDir copy;
  capture::copy_host_tree(discover::SysfsRoot(source.path()), copy.path());
  EXPECT_TRUE(std::filesystem::exists(copy.path() + "/proc/301/comm"));
  EXPECT_FALSE(std::filesystem::exists(copy.path() + "/proc/301/environ"));
  EXPECT_FALSE(std::filesystem::exists(copy.path() + "/proc/302"));
  EXPECT_EQ(discover::running_nvidia_services(discover::SysfsRoot(copy.path())),
            (std::vector<std::string>{"nv-fabricmanage", "nvidia-imex"}));
}

TEST(HostTreeCopy, ALimitStopsTheCopyAndSaysWhich) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  test::TempDir copy;
  capture::TreeCopyLimits limits;
  limits.max_files = 5;
  const capture::TreeCopy tree = capture::copy_host_tree(discover::SysfsRoot(snapshot.root()), copy.path(), limits);
  EXPECT_EQ(tree.files, 5u);
  EXPECT_NE(tree.truncated.find("5 files"), std::string::npos) << tree.truncated;
}

capture::Capture h200x2_capture() {
  capture::Capture capture;
  capture.manifest.linkscope_version = "test";
  capture.manifest.hostname = "h200x2";
  capture.manifest.environment = {{"NCCL_P2P_LEVEL", "NVL"}};
  capture.manifest.nccl_library = "/usr/lib/x86_64-linux-gnu/libnccl.so.2";
  capture.manifest.nccl_version = "2.28.3";
  capture.nvml = test::h200x2_nvml_snapshot();
  capture.cuda = test::h200x2_cuda_snapshot(capture.nvml, {0, 1});
  return capture;
}

TEST(CaptureFile, AWrittenCaptureIsReadBackWithTheSameFactsAndTree) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  test::TempDir work;
  capture::Capture capture = h200x2_capture();
  capture.manifest.tree =
      capture::copy_host_tree(discover::SysfsRoot(snapshot.root()), work.path() + "/linkscope-capture/root");
  const std::string file = work.path() + "/machine.tgz";
  capture::write_capture(file, work.path(), capture);

  const capture::LoadedCapture loaded = capture::load_capture(file, Environment::from_map({}));
  EXPECT_EQ(loaded.capture().manifest.hostname, "h200x2");
  EXPECT_EQ(loaded.capture().manifest.environment.at("NCCL_P2P_LEVEL"), "NVL");
  EXPECT_EQ(loaded.capture().manifest.tree.files, capture.manifest.tree.files);
  EXPECT_FALSE(loaded.capture().nccl.has_value());
  EXPECT_EQ(capture::nvml_snapshot_json(loaded.capture().nvml), capture::nvml_snapshot_json(capture.nvml));
  EXPECT_EQ(system_of(loaded.root()), system_of(snapshot.root()));
  // The run describes the captured machine: its host name, the capture, its libnccl.
  const model::Run run = capture::captured_run(loaded, {}, {});
  EXPECT_EQ(run.config.host, "h200x2");
  EXPECT_EQ(run.system.capture, file);
  EXPECT_EQ(run.environment.nccl_version, "2.28.3");
  EXPECT_EQ(run.system.gpus.size(), 2u);
}

TEST(CaptureFile, FilesThatAreNotCapturesAreOneLineInputErrors) {
  test::TempDir dir;
  const Environment env = Environment::from_map({});
  const auto message_of = [&](const std::string& path) -> std::string {
    try {
      capture::load_capture(path, env);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_NE(message_of(dir.path() + "/missing.tgz").find("no such capture file"), std::string::npos);
  EXPECT_NE(message_of(dir.path()).find("not a capture file"), std::string::npos);
  const std::string garbage = dir.write("garbage.tgz", "this is not gzip\n");
  EXPECT_NE(message_of(garbage).find("not a readable capture"), std::string::npos) << message_of(garbage);

  // A real tar.gz without the capture's folder.
  dir.write("other/readme.txt", "hello");
  ASSERT_EQ(run_child({"tar", {"-czf", dir.path() + "/other.tgz", "-C", dir.path(), "other"}}).exit_code, 0);
  EXPECT_NE(message_of(dir.path() + "/other.tgz").find("no linkscope-capture/ folder"), std::string::npos);

  // A capture of a newer format.
  const std::string manifest = capture::manifest_json(capture::CaptureManifest{}).dump();
  json newer = json::parse(manifest);
  newer["format_version"] = 99;
  dir.write("newer/linkscope-capture/manifest.json", newer.dump());
  ASSERT_EQ(run_child({"tar", {"-czf", dir.path() + "/newer.tgz", "-C", dir.path() + "/newer", "linkscope-capture"}})
                .exit_code,
            0);
  const std::string newer_message = message_of(dir.path() + "/newer.tgz");
  EXPECT_NE(newer_message.find("format_version"), std::string::npos) << newer_message;
  EXPECT_NE(newer_message.find("update linkscope"), std::string::npos) << newer_message;
  EXPECT_EQ(newer_message.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace linkscope
